/**
 * Sending one action's form with JavaScript, and what came of it: the machine behind
 * `<Form>` and `useAction` (docs/guide/forms-and-actions.md). A store for
 * `useSyncExternalStore`, so the hook and the form it gives read the same state.
 *
 * - A submission is pending until what the server changed is on screen: the action's
 *   answer, then the page on screen loaded again (`revalidate`), or the navigation to
 *   the page it redirects to begun. Its values are readable meanwhile (optimistic UI).
 * - `<Form>` takes one at a time (a double click sends once). `useAction` takes any
 *   number and sends them in order, each once the one before has answered (so each
 *   carries the session the one before left); the newest decides what is shown, an
 *   older one's answer only says whether the server changed something.
 * - A refusal or failure is this action's own: its state, and no pending values, so
 *   what an optimistic UI showed goes back to the data.
 */
import { ACTION_FIELD, type ActionResponse, type ActionState, type Changed } from '../../../shared/framework/actions.js'
import { locationKey, parseTarget } from '../../../shared/framework/location.js'
import type { AppNavigation } from './navigation-context.js'
import { postForm } from './post-form.js'

export const NOT_SENT = 'The form could not be sent. Check your connection and try again.'

export interface SubmissionsSnapshot {
  /** The newest submission's values while it is pending; undefined when none is. */
  readonly pending: Readonly<Record<string, string>> | undefined
  /** The last refusal or failure, shown until the next submission. */
  readonly state: ActionState | undefined
  /** Whether this form has sent anything: until then a refusal the server rendered the page with is shown. */
  readonly sent: boolean
  /** A form with files being sent: the percentage sent so far, once the browser says. */
  readonly progress: number | undefined
  /** How many refusals this form has had (each one's announcement is read again). */
  readonly refusals: number
}

/** What a submission needs of the page it is sent from. */
export interface SubmitContext {
  readonly engine: AppNavigation | null
  readonly navigate: (to: string) => void
  /** The form element, reset after a success that stays on the page. */
  readonly form?: HTMLFormElement | null
}

type Sent =
  | { readonly kind: 'done'; readonly redirect: string; readonly changed?: Changed }
  /** `refused`: the action refused the values (not a failure to send or to run). */
  | { readonly kind: 'problem'; readonly state: ActionState; readonly refused: boolean }

/** One action's submissions from one form or hook: a store for `useSyncExternalStore`, and the way to send. */
export interface Submissions {
  /** The action these submissions send. */
  readonly action: string
  subscribe(onChange: () => void): () => void
  getSnapshot(): SubmissionsSnapshot
  /** Sends `body` (its values given apart, for the optimistic UI); ignored while one is pending unless concurrent. */
  submit(body: URLSearchParams | FormData, values: Readonly<Record<string, string>>, context: SubmitContext): Promise<void>
}

// A closure, not a class: its variables minify, where a class's private names stay in
// the first-load script whole.
export function createSubmissions(action: string, concurrent: boolean): Submissions {
  const listeners = new Set<() => void>()
  let snapshot: SubmissionsSnapshot = { pending: undefined, state: undefined, sent: false, progress: undefined, refusals: 0 }
  /** The newest submission's number: only its outcome is shown. */
  let newest = 0
  /** What older submissions changed, answered after the newest was sent: it must reach the screen too. */
  let changedMeanwhile: Array<Changed | undefined> = []
  /** The submissions sent or waiting, in order: the next goes once the last has answered. */
  let line: Promise<unknown> = Promise.resolve()

  function update(change: Partial<SubmissionsSnapshot>): void {
    snapshot = { ...snapshot, ...change }
    for (const listener of listeners) listener()
  }

  async function send(url: string, body: URLSearchParams | FormData): Promise<Sent> {
    const failed = (message: string): Sent => ({
      kind: 'problem',
      state: { action, fieldErrors: {}, values: {}, formError: message },
      refused: false,
    })
    try {
      const answer = (await postForm(url, body, (share) => update({ progress: Math.floor(share * 100) }))) as
        ActionResponse | { error?: { message?: string } }
      if (!('ok' in answer)) return failed(answer.error?.message ?? NOT_SENT)
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
    // The user went on while it was sent (a link, Back): the action happened, but its
    // page no longer decides where they are, as a newer navigation supersedes an older one.
    const movedOn = here() !== sentFrom || context.engine?.navigations !== navigationsBefore
    let settled: Promise<void> | undefined
    if (sent.kind === 'problem') {
      update({ state: sent.state, refusals: snapshot.refusals + (sent.refused ? 1 : 0), progress: undefined })
      if (older.length > 0) settled = context.engine?.revalidate(allOf(older))
    } else if (movedOn) {
      settled = context.engine?.revalidate(allOf([...older, sent.changed]))
    } else if (parseTarget(sent.redirect)?.key === locationKey(window.location.pathname, window.location.search)) {
      // Back to this page (the server answers with its canonical key): it is loaded again.
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

/** What several successful submissions changed together: everything if one named nothing. */
function allOf(changes: ReadonlyArray<Changed | undefined>): Changed | undefined {
  if (changes.includes(undefined)) return undefined
  return { routes: changes.flatMap((changed) => changed!.routes ?? []), layouts: changes.flatMap((changed) => changed!.layouts ?? []) }
}

/**
 * The body a form posts: urlencoded like the browser's own post, unless it has a file
 * input (then multipart, files included). `submitter`'s name and value go with it.
 * With it, the form's text values, for the optimistic UI.
 */
export function bodyOf(form: HTMLFormElement, submitter: HTMLElement | null): { body: URLSearchParams | FormData; values: Record<string, string> } {
  const data = new FormData(form, submitter)
  const values: Record<string, string> = {}
  for (const [key, value] of data) if (typeof value === 'string' && key !== ACTION_FIELD) values[key] = value
  if (form.querySelector('input[type="file"]')) return { body: data, values }
  const body = new URLSearchParams()
  for (const [key, value] of data) if (typeof value === 'string') body.append(key, value)
  return { body, values }
}
