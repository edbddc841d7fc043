/** Runs the action a form names and answers its outcome. */
import { timeStep } from '../metrics/timing.js'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { ActionOutcome, ChangedOnWire } from '../../../shared/framework/actions.js'
import { readActionInput, type ReadInput } from '../../../shared/framework/action-input.js'
import type { CanonicalLocation } from '../../../shared/framework/location.js'
import type { RouteMatch } from '../../../shared/framework/route-table.js'
import { classify, serverError } from '../failures.js'
import type { AppView } from '../render/app-view.js'
import { searchOf } from '../render/resolve-page.js'
import { openResponse } from '../response-control.js'
import type { ReceivedForm } from '../uploads/receive-multipart.js'
import type { ActionResponses } from './responses.js'
import type { FoundAction } from './find-action.js'
import type { GuardOutcome } from '../guards.js'

export interface PostedPage {
  readonly view: AppView
  readonly location: CanonicalLocation
  readonly match: RouteMatch | null
  /** The value of the nearest guard above the action (undefined when none guards it). */
  readonly guard: unknown
}

/** `release` frees the form's files: called once the action is over, whatever its outcome. */
export async function respondToForm(
  responses: ActionResponses,
  request: FastifyRequest,
  reply: FastifyReply,
  page: PostedPage,
  found: FoundAction,
  form: ReceivedForm,
  release: () => Promise<void>,
) {
  const { view, location, match, guard } = page
  const { name } = found
  let read: ReadInput
  try {
    read = await readActionInput(found.fields, form.fields)
  } catch (error) {
    // A schema of the product's that throws is its fault, as the action's would be.
    await release()
    return respondToThrown(responses, request, reply, error, thrownAt(match, found))
  }
  const files = Object.fromEntries(Object.keys(found.files ?? {}).map((field) => [field, form.files.get(field) ?? null]))
  // What a refused form gets back: every field but the secret ones, whose values go to the action alone.
  const values = valuesToKeep(read.values, found.secrets)
  // A refused value and a refused file are said together: the action never sees either.
  if (!read.ok || Object.keys(form.refusedFiles).length > 0) {
    await release()
    const fieldErrors = { ...(read.ok ? {} : read.fieldErrors), ...form.refusedFiles }
    const formError = read.ok ? undefined : read.formError
    return responses.respondInvalid(request, reply, view, location, { action: name, fieldErrors, ...(formError ? { formError } : {}), values })
  }
  // What the action does to the answer (cookies, headers) goes out whatever its outcome.
  const response = await openResponse(request)
  let outcome: ActionOutcome<string>
  try {
    const searchParams = new URLSearchParams(location.search)
    const handling = found.handler(
      // Typed per action by the route table; here, any action's.
      { ...read.input, ...files },
      {
        params: match?.params ?? {},
        search: match ? searchOf(match, searchParams) : {},
        searchParams,
        request,
        cookies: response.cookies,
        response: response.control,
        session: response.session,
        guard,
      },
    )
    outcome = await timeStep(request, 'action', match?.id, name, Promise.resolve(handling))
  } catch (error) {
    await release()
    await response.applyTo(reply)
    return respondToThrown(responses, request, reply, error, thrownAt(match, found))
  }
  await release()

  await response.applyTo(reply)
  if (outcome.ok) {
    // The work is done: an unknown `changed` is reported, but the answer is a success that refreshes everything.
    const unknown = outcome.changed && unknownChanged(view, outcome.changed)
    if (unknown) serverError(request, new TypeError(unknown), 'action named an unknown change', { action: name })
    return responses.respondSuccess(request, reply, outcome.redirect ?? location.pageKey, unknown ? undefined : outcome.changed)
  }
  return responses.respondInvalid(request, reply, view, location, {
    action: name,
    fieldErrors: outcome.fieldErrors as Record<string, string>,
    ...(outcome.formError ? { formError: outcome.formError } : {}),
    values,
  })
}

function thrownAt(match: RouteMatch | null, found: FoundAction): ThrownAt {
  return {
    what: 'action failed',
    ...(match ? { routeId: match.id } : {}),
    ...(found.owner.kind === 'layout' ? { layoutId: found.owner.id } : {}),
    action: found.name,
  }
}

function unknownChanged(view: AppView, changed: ChangedOnWire): string | undefined {
  const { routes, layouts } = view.definition.router
  const route = changed.routes?.find((id) => !Object.hasOwn(routes, id))
  if (route !== undefined) return `An action names ${JSON.stringify(route)} as changed, which is no route's id`
  const layout = changed.layouts?.find((id) => !Object.hasOwn(layouts, id))
  if (layout !== undefined) return `An action names ${JSON.stringify(layout)} as changed, which is no layout's id`
  return undefined
}

interface ThrownAt {
  readonly what: 'action failed' | 'guard failed'
  readonly routeId?: string
  readonly layoutId?: string
  readonly action?: string
}

export async function respondToThrown(responses: ActionResponses, request: FastifyRequest, reply: FastifyReply, error: unknown, at: ThrownAt) {
  const { what, ...source } = at
  return responses.sendFailure(request, reply, classify(request, error, what, source, 'page'))
}

/** docs/guide/forms-and-actions.md, "Secret fields". */
export function valuesToKeep(input: Readonly<Record<string, string>>, secrets: readonly string[]): Record<string, string> {
  if (secrets.length === 0) return { ...input }
  return Object.fromEntries(Object.entries(input).filter(([field]) => !secrets.includes(field)))
}

/** Answered as the page would be, its cookies included. */
export async function respondToGuardStop(
  responses: ActionResponses,
  request: FastifyRequest,
  reply: FastifyReply,
  guards: Extract<GuardOutcome, { ok: false }>,
  match: RouteMatch | null,
) {
  await (await openResponse(request)).applyTo(reply)
  return respondToThrown(responses, request, reply, guards.error, {
    what: 'guard failed',
    ...(match ? { routeId: match.id } : {}),
    ...(guards.layoutId ? { layoutId: guards.layoutId } : {}),
  })
}
