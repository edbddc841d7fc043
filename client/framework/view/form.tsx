/**
 * `<Form route action>`: a form posted to the current page, naming its server action.
 * Without JavaScript the server responds with 303 or the page again (422); with it, sent
 * by fetch, errors in place (docs/guide/forms-and-actions.md).
 */
import { useContext, useEffect, useId, useRef, useState, useSyncExternalStore, type FormEvent, type FormHTMLAttributes, type ReactNode } from 'react'
import { useLocation } from 'wouter'
import { ACTION_FIELD, type ActionState } from '../../../shared/framework/actions.js'
import { IDENTITY_FIELD } from '../../../shared/framework/identity.js'
import type {
  ActionFields,
  ActionFileFields,
  ActionName,
  ActionSecretFields,
  ActionsDecl,
  SecretsDecl,
} from '../../../shared/framework/route-table.js'
import type { FileFieldsDecl, FilesDecl } from '../../../shared/framework/uploads.js'
import { isStandardSchema, type ActionFieldsDecl } from '../../../shared/framework/action-fields.js'
import { constraintsOf, type FieldConstraints, type FieldDecl } from '../../../shared/framework/form-field.js'
import { ActionStateContext } from './action-state.js'
import { NavigationContext } from './navigation-context.js'
import { PageMatchContext } from './page-match.js'
import { bodyOf, createSubmissions, type Submissions, type SubmissionsSnapshot } from './submissions.js'

/** The constraint attributes (`required`, `maxLength`, `type`...) are hints: the server decides. */
export interface FieldProps<Field extends string> extends FieldConstraints {
  readonly name: Field
  readonly id: string
  readonly defaultValue?: string
  readonly defaultChecked?: boolean
  readonly 'aria-invalid'?: true
  readonly 'aria-describedby'?: string
}

/** A secret field's value never comes back with invalid input, so it has no `defaultValue`. */
export type SecretFieldProps<Field extends string> = Omit<FieldProps<Field>, 'defaultValue' | 'defaultChecked'>

/** A file input keeps no value across a validation error. */
export interface FileInputProps<Field extends string> extends Omit<FieldProps<Field>, 'defaultValue' | 'defaultChecked' | 'type'> {
  readonly type: 'file'
  readonly accept: string
}

/** What a hidden input posts is given, never what a validation error sent back. */
export interface HiddenInputProps<Field extends string> {
  readonly type: 'hidden'
  readonly name: Field
  readonly value: string
}

export interface FormApi<Field extends string, FileField extends string = never, SecretField extends string = never> {
  field<F extends Field>(name: F): F extends SecretField ? SecretFieldProps<F> : FieldProps<F>
  value(name: Exclude<Field, SecretField>): string | undefined
  /** `<input {...form.hidden('id', row.id)} />`, its name checked like a field's. */
  hidden<F extends Field>(name: F, value: string): HiddenInputProps<F>
  file(name: FileField): FileInputProps<FileField>
  error(name: Field | FileField): ReactNode
  readonly formError: string | undefined
  /** Until the page shows what the action changed; a second submit meanwhile is ignored. */
  readonly pending: boolean
  /** A form with files sent by JavaScript: the percentage sent. */
  readonly progress: number | undefined
}

/** A layout's form works on every page in it. */
export type ActionOwnerDef = {
  readonly actions?: ActionsDecl | undefined
  readonly files?: FilesDecl | undefined
  readonly secrets?: SecretsDecl | undefined
}

export interface FormProps<R extends ActionOwnerDef, A extends ActionName<R>> extends Omit<
  FormHTMLAttributes<HTMLFormElement>,
  'action' | 'method' | 'children' | 'onSubmit'
> {
  readonly route: R
  readonly action: A
  readonly children: (form: FormApi<ActionFields<R, A>, ActionFileFields<R, A>, ActionSecretFields<R, A>>) => ReactNode
  /**
   * Asked with the values it would send (the submit button's too): false, or a promise of
   * false, cancels it. Only with JavaScript: without it the form posts as it is.
   */
  readonly confirm?: (values: { readonly [F in ActionFields<R, A>]?: string }) => boolean | Promise<boolean>
}

export function Form<R extends ActionOwnerDef, A extends ActionName<R>>({ route, action, children, ...rest }: FormProps<R, A>) {
  const submissions = useSubmissions(action, false)
  return (
    <ActionForm route={route} action={action} submissions={submissions} {...rest}>
      {children}
    </ActionForm>
  )
}

export function useSubmissions(action: string, concurrent: boolean): Submissions {
  const [submissions] = useState(() => createSubmissions(action, concurrent))
  return submissions
}

/** Until this form sends, the action state the page was rendered with: a layout's form outlives its pages. */
export function useSubmissionsSnapshot(submissions: Submissions): SubmissionsSnapshot {
  const fromServer = useContext(ActionStateContext)
  const snapshot = useSyncExternalStore(submissions.subscribe, submissions.getSnapshot, submissions.getSnapshot)
  if (snapshot.sent || fromServer?.action !== submissions.action) return snapshot
  return { ...snapshot, state: fromServer }
}

export function ActionForm<R extends ActionOwnerDef, A extends ActionName<R>>({
  route,
  action,
  submissions,
  children,
  confirm,
  ...rest
}: FormProps<R, A> & { readonly submissions: Submissions }) {
  const { state, pending, progress, refusals } = useSubmissionsSnapshot(submissions)
  const engine = useContext(NavigationContext)
  // A dynamic page's forms say who they were rendered for: the server refuses them after a sign-in or out.
  const identity = useContext(PageMatchContext)?.identity
  const [, navigate] = useLocation()
  const formRef = useRef<HTMLFormElement>(null)
  const fileFields: FileFieldsDecl | undefined = route.files?.[action]
  const secrets: readonly string[] = route.secrets?.[action] ?? []
  const id = useId()
  const { api, unshownErrors } = formApi<ActionFields<R, A>, ActionFileFields<R, A>, ActionSecretFields<R, A>>(
    id,
    state,
    route.actions?.[action],
    fileFields,
    secrets,
    pending !== undefined,
    progress,
  )

  // After a validation error, focus goes to the first field to fix.
  useEffect(() => {
    if (refusals > 0) formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus()
  }, [refusals])

  const confirming = useRef(false)
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    const form = event.currentTarget
    const { body, values } = bodyOf(form, (event.nativeEvent as SubmitEvent).submitter)
    const send = () => void submissions.submit(body, values, { engine, navigate, form })
    if (!confirm) return send()
    // One question at a time: a second submit while it is open is the same submission.
    if (confirming.current) return
    confirming.current = true
    void Promise.resolve()
      .then(() => confirm(values))
      .then(
        (confirmed) => confirmed && send(),
        (error: unknown) => reportError(error),
      )
      .finally(() => (confirming.current = false))
  }

  // Rendered first: what it shows decides which errors the form must say itself.
  const fields = children(api)
  const unshown = unshownErrors()
  const errorCount = Object.keys(state?.fieldErrors ?? {}).length - unshown.length
  const formErrors = [api.formError, ...unshown].filter((message) => message !== undefined)
  return (
    <form method="post" encType={fileFields ? 'multipart/form-data' : undefined} onSubmit={submit} noValidate ref={formRef} {...rest}>
      <input type="hidden" name={ACTION_FIELD} value={action} />
      {identity !== undefined && <input type="hidden" name={IDENTITY_FIELD} value={identity} />}
      {/* Read out once per submission: how many fields to fix. Focus then goes to the
          first, whose own error is read with it (aria-describedby). */}
      {errorCount > 0 && (
        <p className="visually-hidden" role="alert" key={refusals}>
          {errorCount === 1 ? 'One field needs fixing.' : `${errorCount} fields need fixing.`}
        </p>
      )}
      {formErrors.length > 0 && (
        <p className="form-error" role="alert">
          {formErrors.join(' ')}
        </p>
      )}
      {fields}
    </form>
  )
}

/**
 * `unshownErrors()`, once the children are rendered: the field errors no `form.error(name)`
 * showed (a hidden input's, a button's), said as the form's error so none is silent.
 */
function formApi<Field extends string, FileField extends string, SecretField extends string>(
  id: string,
  state: ActionState | undefined,
  declared: ActionFieldsDecl | undefined,
  fileFields: FileFieldsDecl | undefined,
  secrets: readonly string[],
  pending: boolean,
  progress: number | undefined,
): { api: FormApi<Field, FileField, SecretField>; unshownErrors: () => string[] } {
  const errors = state?.fieldErrors ?? {}
  const shown = new Set<string>()
  // Only the foundation's builders are data the browser can read; a Standard Schema gives no hints.
  const declOf = (name: string): FieldDecl<unknown> | undefined => {
    if (!declared || Array.isArray(declared) || isStandardSchema(declared)) return undefined
    const decl = Object.hasOwn(declared, name) ? (declared as Readonly<Record<string, unknown>>)[name] : undefined
    return decl && !isStandardSchema(decl) ? (decl as FieldDecl<unknown>) : undefined
  }
  const errorId = (name: string) => `${id}-${name}-error`
  const errorWiring = (name: string) => (errors[name] ? { 'aria-invalid': true as const, 'aria-describedby': errorId(name) } : {})
  // Should a state ever hold a secret field's value, it is not shown either.
  const value = (name: string) => (secrets.includes(name) ? undefined : state?.values[name])
  const api: FormApi<Field, FileField, SecretField> = {
    field: <F extends Field>(name: F) => {
      const previous = value(name)
      const decl = declOf(name)
      const kept = previous === undefined ? {} : decl?.kind === 'checkbox' ? { defaultChecked: previous !== '' } : { defaultValue: previous }
      const props: FieldProps<F> = { name, id: `${id}-${name}`, ...(decl ? constraintsOf(decl) : {}), ...kept, ...errorWiring(name) }
      return props as F extends SecretField ? SecretFieldProps<F> : FieldProps<F>
    },
    value,
    hidden: (name, given) => ({ type: 'hidden', name, value: given }),
    file: (name) => ({ name, id: `${id}-${name}`, type: 'file', accept: (fileFields?.[name]?.types ?? []).join(','), ...errorWiring(name) }),
    error: (name) => {
      shown.add(name)
      return errors[name] ? (
        <span className="field-error" id={errorId(name)}>
          {errors[name]}
        </span>
      ) : null
    },
    formError: state?.formError,
    pending,
    progress,
  }
  const unshownErrors = () =>
    Object.entries(errors)
      .filter(([name]) => !shown.has(name))
      .map(([, message]) => message)
  return { api, unshownErrors }
}
