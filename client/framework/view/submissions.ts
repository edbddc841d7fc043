/**
 * The machine behind `<Form>` and `useAction` (docs/guide/forms-and-actions.md). A
 * submission is pending until what the server changed is on screen. `useAction` sends
 * in order, each once the one before has its response, so each carries the session it left.
 */
import { ACTION_FIELD, type ActionResponse, type ActionState, type ChangedOnWire } from '../../../shared/framework/actions.js'
import { IDENTITY_CHANGED_CODE, IDENTITY_FIELD } from '../../../shared/framework/identity.js'
import { pageKeyOf, parseTarget } from '../../../shared/framework/location.js'
import type { AppNavigation } from './navigation-context.js'
import { postForm } from './post-form.js'

export const NOT_SENT = 'The form could not be sent. Check your connection and try again.'

export interface SubmissionsSnapshot {
  readonly pending: Readonly<Record<string, string>> | undefined
  readonly state: ActionState | undefined
  /** Until this form sends, the validation errors the server rendered the page with are shown. */
  readonly sent: boolean
  readonly progress: number | undefined
  /** Each submission's error announcement is read again. */
  readonly refusals: number
}

export interface SubmitContext {
  readonly engine: AppNavigation | null
  readonly navigate: (to: string) => void
  /** Reset after a success that stays on the page. */
  readonly form?: HTMLFormElement | null
}

type Sent =
  | { readonly kind: 'done'; readonly redirect: string; readonly changed?: ChangedOnWire }
  | { readonly kind: 'problem'; readonly state: ActionState; readonly refused: boolean; readonly identityChanged?: boolean }

export interface Submissions {
  readonly action: string
  subscribe(onChange: () => void): () => void
  getSnapshot(): SubmissionsSnapshot
  /** Ignored while one is pending unless concurrent. */
  submit(body: URLSearchParams | FormData, values: Readonly<Record<string, string>>, context: SubmitContext): Promise<void>
}

// A closure, not a class: its variables minify, where a class's private names stay whole.
export function createSubmissions(action: string, concurrent: boolean): Submissions {
  const listeners = new Set<() => void>()
  let snapshot: SubmissionsSnapshot = { pending: undefined, state: undefined, sent: false, progress: undefined, refusals: 0 }
  let newest = 0
  /** What older submissions changed, known after the newest was sent: it must reach the screen too. */
  let changedMeanwhile: Array<ChangedOnWire | undefined> = []
  let line: Promise<unknown> = Promise.resolve()

  function update(change: Partial<SubmissionsSnapshot>): void {
    snapshot = { ...snapshot, ...change }
    for (const listener of listeners) listener()
  }

  async function send(url: string, body: URLSearchParams | FormData): Promise<Sent> {
    const failed = (message: string): Sent & { kind: 'problem' } => ({
      kind: 'problem',
      state: { action, fieldErrors: {}, values: {}, formError: message },
      refused: false,
    })
    try {
      const answer = (await postForm(url, body, (share) => update({ progress: Math.floor(share * 100) }))) as
        ActionResponse | { error?: { code?: string; message?: string } }
      if (!('ok' in answer)) return { ...failed(answer.error?.message ?? NOT_SENT), identityChanged: answer.error?.code === IDENTITY_CHANGED_CODE }
      if (!answer.ok) return { kind: 'problem', state: answer, refused: true }
      return { kind: 'done', redirect: answer.redirect, ...(answer.changed ? { changed: answer.changed } : {}) }
    } catch {
      return failed(NOT_SENT)
    }
  }

  async function submit(body: URLSearchParams | FormData, values: Readonly<Record<string, string>>, context: SubmitContext): Promise<void> {
    if (!concurrent && snapshot.pending) return
    const number = ++newest
    update({ pending: values, state: undefined, sent: true })
    const here = () => window.location.pathname + window.location.search
    const sentFrom = here()
    const navigationsBefore = context.engine?.navigations
    const turn = line.then(() => send(sentFrom, body))
    line = turn
    const sent = await turn
    if (number !== newest) {
      if (sent.kind === 'done') changedMeanwhile.push(sent.changed)
      return // a newer submission decides what is shown
    }
    const older = changedMeanwhile
    changedMeanwhile = []
    // The user went on while it was sent (a link, Back): its page no longer decides where they are.
    const movedOn = here() !== sentFrom || context.engine?.navigations !== navigationsBefore
    let settled: Promise<void> | undefined
    if (sent.kind === 'problem') {
      update({ state: sent.state, refusals: snapshot.refusals + (sent.refused ? 1 : 0), progress: undefined })
      // Signed in or out in another tab: everything on screen is someone else's, loaded again.
      if (sent.identityChanged) settled = context.engine?.revalidate()
      else if (older.length > 0) settled = context.engine?.revalidate(allOf(older))
    } else if (movedOn) {
      settled = context.engine?.revalidate(allOf([...older, sent.changed]))
    } else if (parseTarget(sent.redirect)?.pageKey === pageKeyOf(window.location.pathname, window.location.search)) {
      // The server responds with this page's canonical key.
      context.form?.reset()
      settled = context.engine?.revalidate(allOf([...older, sent.changed]))
    } else {
      context.engine?.invalidate(allOf([...older, sent.changed]))
      context.navigate(sent.redirect)
    }
    await settled
    if (number === newest) update({ pending: undefined, progress: undefined })
  }

  return {
    action,
    subscribe(onChange) {
      listeners.add(onChange)
      return () => listeners.delete(onChange)
    },
    getSnapshot: () => snapshot,
    submit,
  }
}

/** Everything if one named nothing. */
function allOf(changes: ReadonlyArray<ChangedOnWire | undefined>): ChangedOnWire | undefined {
  if (changes.includes(undefined)) return undefined
  return { routes: changes.flatMap((changed) => changed!.routes ?? []), layouts: changes.flatMap((changed) => changed!.layouts ?? []) }
}

/** Urlencoded like the browser's own post, unless it has a file input; `values` is for the optimistic UI. */
export function bodyOf(form: HTMLFormElement, submitter: HTMLElement | null): { body: URLSearchParams | FormData; values: Record<string, string> } {
  const data = new FormData(form, submitter)
  const values: Record<string, string> = {}
  for (const [key, value] of data) if (typeof value === 'string' && key !== ACTION_FIELD && key !== IDENTITY_FIELD) values[key] = value
  if (form.querySelector('input[type="file"]')) return { body: data, values }
  const body = new URLSearchParams()
  for (const [key, value] of data) if (typeof value === 'string') body.append(key, value)
  return { body, values }
}
