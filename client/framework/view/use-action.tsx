/**
 * `useAction(route, action)`: an action sent without navigating, such as a star toggle.
 *
 * ```tsx
 * const star = useAction(routes.items, 'star')
 * const starred = star.values ? star.values.starred === 'yes' : data.starred // optimistic
 * <star.Form>{(form) => <><input {...form.hidden('starred', starred ? 'no' : 'yes')} /><button>…</button></>}</star.Form>
 * ```
 *
 * A client or server error clears `values`, so an optimistic UI shows the data again.
 */
import { useState, type ReactElement } from 'react'
import type { ActionFields, ActionFileFields, ActionName, ActionSecretFields } from '../../../shared/framework/route-table.js'
import { ActionForm, useSubmissions, useSubmissionsSnapshot, type ActionOwnerDef, type FormApi, type FormProps } from './form.js'

export type BoundFormProps<R extends ActionOwnerDef, A extends ActionName<R>> = Omit<FormProps<R, A>, 'route' | 'action'>

export interface ActionHandle<R extends ActionOwnerDef, A extends ActionName<R>> {
  readonly Form: (props: BoundFormProps<R, A>) => ReactElement
  /** Until the page shows what it changed, or the submission fails. */
  readonly pending: boolean
  /** While pending: the values the newest submission sent (optimistic UI). */
  readonly values: { readonly [F in ActionFields<R, A>]?: string } | undefined
  readonly formError: string | undefined
  readonly fieldErrors: { readonly [F in ActionFields<R, A> | ActionFileFields<R, A>]?: string }
}

export function useAction<R extends ActionOwnerDef, A extends ActionName<R>>(route: R, action: A): ActionHandle<R, A> {
  const submissions = useSubmissions(action, true)
  const { pending, state } = useSubmissionsSnapshot(submissions)
  // One component for the hook's life: a new one each render would remount the form.
  const [Form] = useState(() => {
    const BoundForm = (props: BoundFormProps<R, A>) => <ActionForm route={route} action={action} submissions={submissions} {...props} />
    return BoundForm
  })
  return {
    Form,
    pending: pending !== undefined,
    values: pending,
    formError: state?.formError,
    fieldErrors: state?.fieldErrors ?? {},
  }
}

export type { FormApi, ActionSecretFields }
