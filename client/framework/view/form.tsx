/**
 * `<Form route action>`: a form posted to the current page, naming its server action
 * in a hidden `_action` field (docs/architecture.md, "Server actions").
 * - Without JavaScript it is a plain `<form method="post">`: the server answers 303 on
 *   success, or renders the page again (422) with the errors and the submitted values,
 *   which this component reads from the page payload.
 * - With JavaScript it is sent with fetch (same body, `Accept: application/json`):
 *   errors show in place; on success the page cache is emptied and the app navigates
 *   client-side to the action's redirect, or reloads the current page's data.
 * - An action that declares files is posted as multipart/form-data; with JavaScript
 *   through XMLHttpRequest, so `form.progress` can say how much has been sent.
 * While sending, `form.pending` is true (disable the submit button with it), and a
 * second submit is ignored.
 * The route's declared actions type `action`, the field names of `form.field()` and
 * the file field names of `form.file()`.
 * - An action's secret fields (`secrets` in the route table: a password, a card number)
 *   never come back from the server: `form.field()` gives a secret field's input no
 *   `defaultValue` (its props' type has none), and `form.value()` takes no secret field
 *   (docs/guide/forms-and-actions.md, "Secret fields").
 */
import { useContext, useEffect, useId, useRef, useState, type FormEvent, type FormHTMLAttributes, type ReactNode } from 'react'
import { useLocation } from 'wouter'
import { ACTION_FIELD, type ActionResponse, type ActionState } from '../../../shared/framework/actions.js'
import { locationKey, parseTarget } from '../../../shared/framework/location.js'
import type {
  ActionFields,
  ActionFileFields,
  ActionName,
  ActionSecretFields,
  ActionsDecl,
  SecretsDecl,
} from '../../../shared/framework/route-table.js'
import type { FileFieldsDecl, FilesDecl } from '../../../shared/framework/uploads.js'
import { ActionStateContext } from './action-state.js'
import { NavigationContext } from './navigation-context.js'
import { postForm } from './post-form.js'

export interface FieldProps<Field extends string> {
  readonly name: Field
  readonly id: string
  readonly defaultValue?: string
  readonly 'aria-invalid'?: true
  readonly 'aria-describedby'?: string
}

/** Props for a secret field's input: its value never comes back with a refused form, so it has no `defaultValue`. */
export type SecretFieldProps<Field extends string> = Omit<FieldProps<Field>, 'defaultValue'>

/** Props for a file input: a file input keeps no value across a refusal, so it has no `defaultValue`. */
export interface FileInputProps<Field extends string> extends Omit<FieldProps<Field>, 'defaultValue'> {
  readonly type: 'file'
  /** The field's declared types, so the browser's picker offers those. */
  readonly accept: string
}

/** Props for a hidden input: what it posts is given, never what a refusal sent back. */
export interface HiddenInputProps<Field extends string> {
  readonly type: 'hidden'
  readonly name: Field
  readonly value: string
}

export interface FormApi<Field extends string, FileField extends string = never, SecretField extends string = never> {
  /**
   * Props for the input of `name`: its name, id, last submitted value and error wiring;
   * for a secret field, the same without the value (none comes back).
   */
  field<F extends Field>(name: F): F extends SecretField ? SecretFieldProps<F> : FieldProps<F>
  /** The value last submitted in `name`, if a refused submission sent it back (never a secret field's: none comes back). */
  value(name: Exclude<Field, SecretField>): string | undefined
  /**
   * Props for a hidden input that posts `value` as `name` (a row's id, a return path):
   * `<input {...form.hidden('id', row.id)} />`, its name checked like a field's.
   */
  hidden<F extends Field>(name: F, value: string): HiddenInputProps<F>
  /** Props for the file input of `name`: its name, id, type, accepted types and error wiring. */
  file(name: FileField): FileInputProps<FileField>
  /** The error message of `name`, if the last submission was refused because of it. */
  error(name: Field | FileField): ReactNode
  /** A message about the form as a whole (refused, or could not be sent). */
  readonly formError: string | undefined
  /** True while the form is being sent. */
  readonly pending: boolean
  /** While a form with files is being sent by JavaScript: the percentage sent so far, once the browser says. */
  readonly progress: number | undefined
}

/** What a form posts to: a route, or a layout (its form works on every page in it). */
type ActionOwnerDef = {
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
}

const NOT_SENT = 'The form could not be sent. Check your connection and try again.'

export function Form<R extends ActionOwnerDef, A extends ActionName<R>>({ route, action, children, ...rest }: FormProps<R, A>) {
  const { state, pending, progress, refusals, formRef, submit } = useSubmission(action)
  const fileFields: FileFieldsDecl | undefined = route.files?.[action]
  const secrets: readonly string[] = route.secrets?.[action] ?? []
  const id = useId()
  const api = formApi<ActionFields<R, A>, ActionFileFields<R, A>, ActionSecretFields<R, A>>(id, state, fileFields, secrets, pending, progress)

  const errorCount = Object.keys(state?.fieldErrors ?? {}).length
  return (
    <form method="post" encType={fileFields ? 'multipart/form-data' : undefined} onSubmit={submit} noValidate ref={formRef} {...rest}>
      <input type="hidden" name={ACTION_FIELD} value={action} />
      {/* Read out once per refusal: how many fields to fix. Focus then goes to the first,
          whose own error is read with it (aria-describedby). */}
      {errorCount > 0 && (
        <p className="visually-hidden" role="alert" key={refusals}>
          {errorCount === 1 ? 'One field needs fixing.' : `${errorCount} fields need fixing.`}
        </p>
      )}
      {api.formError && (
        <p className="form-error" role="alert">
          {api.formError}
        </p>
      )}
      {children(api)}
    </form>
  )
}

/**
 * Sending the form with JavaScript, and what came of it: the state shown (first the
 * server's, when it rendered this action's refusal), whether it is being sent and how far.
 */
function useSubmission(action: string) {
  const fromServer = useContext(ActionStateContext)
  const engine = useContext(NavigationContext)
  const [, navigate] = useLocation()
  const [state, setState] = useState<ActionState | undefined>(fromServer?.action === action ? fromServer : undefined)
  const [pending, setPending] = useState(false)
  const [progress, setProgress] = useState<number | undefined>(undefined)
  const sending = useRef(false)
  const formRef = useRef<HTMLFormElement>(null)
  /** Set when a submission sent from this page was refused: focus goes to the first field to fix. */
  const refusedHere = useRef(false)
  /** How many refusals this form has had: each one's announcement is a new element, so it is read again. */
  const [refusals, setRefusals] = useState(0)

  useEffect(() => {
    if (!refusedHere.current) return
    refusedHere.current = false
    formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus()
  }, [state])

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    if (sending.current) return // a double click sends once
    sending.current = true
    setPending(true)
    const form = event.currentTarget
    const body = bodyOf(form, (event.nativeEvent as SubmitEvent).submitter)
    const sentFrom = window.location.pathname + window.location.search
    const navigationsBefore = engine?.navigations
    try {
      const sent = (share: number) => setProgress(Math.floor(share * 100))
      const answer = (await postForm(sentFrom, body, sent)) as ActionResponse | { error?: { message?: string } }
      // The user went on while it was sent (a link, Back): the action happened, but its
      // page no longer decides where they are, as a newer navigation supersedes an older one.
      const movedOn = window.location.pathname + window.location.search !== sentFrom || engine?.navigations !== navigationsBefore
      if ('ok' in answer && answer.ok) {
        setState(undefined)
        if (movedOn) engine?.clearCache()
        else afterSuccess(answer.redirect, form)
      } else if ('ok' in answer) {
        refusedHere.current = true
        setRefusals((count) => count + 1)
        setState(answer)
      } else {
        setState({ action, fieldErrors: {}, values: {}, formError: answer.error?.message ?? NOT_SENT })
      }
    } catch {
      setState({ action, fieldErrors: {}, values: {}, formError: NOT_SENT })
    } finally {
      sending.current = false
      setPending(false)
      setProgress(undefined)
    }
  }

  /** What the server changed may show anywhere: forget every cached page, then go on. */
  function afterSuccess(redirect: string, form: HTMLFormElement) {
    // The server answers with the canonical key when the action goes back to its page.
    if (parseTarget(redirect)?.key === locationKey(window.location.pathname, window.location.search)) {
      form.reset()
      engine?.refresh()
    } else {
      engine?.clearCache()
      navigate(redirect)
    }
  }

  return { state, pending, progress, refusals, formRef, submit }
}

/**
 * The body the form posts: urlencoded like the browser's own post, unless it has a file
 * input (then multipart, files included). `submitter`'s name and value go with it.
 */
function bodyOf(form: HTMLFormElement, submitter: HTMLElement | null): URLSearchParams | FormData {
  const data = new FormData(form, submitter)
  if (form.querySelector('input[type="file"]')) return data
  const body = new URLSearchParams()
  for (const [key, value] of data) if (typeof value === 'string') body.append(key, value)
  return body
}

/** What `children` gets: each field's props and error wired to the last refusal's state. */
function formApi<Field extends string, FileField extends string, SecretField extends string>(
  id: string,
  state: ActionState | undefined,
  fileFields: FileFieldsDecl | undefined,
  secrets: readonly string[],
  pending: boolean,
  progress: number | undefined,
): FormApi<Field, FileField, SecretField> {
  const errors = state?.fieldErrors ?? {}
  const errorId = (name: string) => `${id}-${name}-error`
  const errorWiring = (name: string) => (errors[name] ? { 'aria-invalid': true as const, 'aria-describedby': errorId(name) } : {})
  // The server sends no secret field's value back; should a state ever hold one, it is not shown either.
  const value = (name: string) => (secrets.includes(name) ? undefined : state?.values[name])
  return {
    field: <F extends Field>(name: F) => {
      const previous = value(name)
      const props: FieldProps<F> = { name, id: `${id}-${name}`, ...(previous !== undefined ? { defaultValue: previous } : {}), ...errorWiring(name) }
      return props as F extends SecretField ? SecretFieldProps<F> : FieldProps<F>
    },
    value,
    hidden: (name, given) => ({ type: 'hidden', name, value: given }),
    file: (name) => ({ name, id: `${id}-${name}`, type: 'file', accept: (fileFields?.[name]?.types ?? []).join(','), ...errorWiring(name) }),
    error: (name) =>
      errors[name] ? (
        <span className="field-error" id={errorId(name)}>
          {errors[name]}
        </span>
      ) : null,
    formError: state?.formError,
    pending,
    progress,
  }
}
