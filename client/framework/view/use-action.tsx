/**
 * `useAction(route, action)`: an action sent without navigating (docs/guide/forms-and-actions.md,
 * "Actions without navigation"): a star toggle, a row's delete, a like. Typed against the
 * route table like `<Form>`.
 *
 * ```tsx
 * const star = useAction(routes.items, 'star')
 * const starred = star.values ? star.values.starred === 'yes' : data.starred // optimistic
 * <star.Form>{(form) => <><input {...form.hidden('starred', starred ? 'no' : 'yes')} /><button>…</button></>}</star.Form>
 * ```
 *
 * - `pending` lasts until the page on screen shows what the action changed (its answer,
 *   then the page's loaders run again); `values` is what the newest submission sent,
 *   while it is pending: show it instead of the data, and the data again once it ends.
 * - Any number may be sent at once; the newest one decides `values` and the outcome shown.
 * - A refusal or failure is this hook's own (`formError`, `fieldErrors`); `values` is then
 *   gone, so an optimistic UI shows the data again, which the server did not change.
 * - Without JavaScript, `Form` is the same `<form method="post">` as `<Form>`'s: the
 *   server answers 303 back to the page.
 */
import { useState, type ReactElement } from 'react'
import type { ActionFields, ActionFileFields, ActionName, ActionSecretFields } from '../../../shared/framework/route-table.js'
import { ActionForm, useSubmissions, useSubmissionsSnapshot, type ActionOwnerDef, type FormApi, type FormProps } from './form.js'

/** The props of a `useAction` hook's `Form`: a `<Form>`'s, its route and action given already. */
export type BoundFormProps<R extends ActionOwnerDef, A extends ActionName<R>> = Omit<FormProps<R, A>, 'route' | 'action'>

export interface ActionHandle<R extends ActionOwnerDef, A extends ActionName<R>> {
  /** A `<Form>` that sends this action through the hook: it does not navigate while the page stays. */
  readonly Form: (props: BoundFormProps<R, A>) => ReactElement
  /** True from a submission until the page shows what it changed, or until it is refused or fails. */
  readonly pending: boolean
  /** While pending: the values the newest submission sent (optimistic UI). */
  readonly values: { readonly [F in ActionFields<R, A>]?: string } | undefined
  /** Why the last submission was refused or failed, for the form as a whole. */
  readonly formError: string | undefined
  /** The last refusal's errors, by field. */
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
