/**
 * Runs the action a form names, with the form's fields and files, and answers its
 * outcome: success, a refused submission, or a throw (a redirect, a not-found, an
 * HttpError the user may read, else a fault: digest, log line, report).
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { ActionInput, ActionOutcome } from '../../../shared/framework/actions.js'
import { ErrorCode, isHttpError, isNotFound, isRedirect } from '../../../shared/framework/errors.js'
import type { CanonicalLocation } from '../../../shared/framework/location.js'
import type { RouteMatch } from '../../../shared/framework/route-table.js'
import { faultOf } from '../failures.js'
import type { AppView } from '../render/app-view.js'
import { openResponse } from '../response-control.js'
import type { ReceivedForm } from '../uploads/receive-multipart.js'
import type { ActionAnswers } from './answers.js'
import type { FoundAction } from './find-action.js'

const NO_PAGE = 'There is no page at this address.'

/** Runs the action a form names with the form's fields and files (released once it is over), and answers its outcome. */
export async function answerForm(
  answers: ActionAnswers,
  request: FastifyRequest,
  reply: FastifyReply,
  view: AppView,
  location: CanonicalLocation,
  match: RouteMatch | null,
  found: FoundAction,
  form: ReceivedForm,
  release: () => Promise<void>,
) {
  const { name } = found
  const values = Object.fromEntries(found.fields.map((field) => [field, form.fields.get(field) ?? '']))
  const files = Object.fromEntries(Object.keys(found.files ?? {}).map((field) => [field, form.files.get(field) ?? null]))
  if (Object.keys(form.refusedFiles).length > 0) {
    await release()
    return answers.answerInvalid(request, reply, view, location, { action: name, fieldErrors: form.refusedFiles, values })
  }
  // What the action does to the answer (cookies, headers) goes out whatever its outcome.
  const response = await openResponse(request)
  let outcome: ActionOutcome<string>
  try {
    outcome = await found.handler(
      // Typed per action by the route table; here, any action's.
      { ...values, ...files } as ActionInput<string, string>,
      {
        params: match?.params ?? {},
        searchParams: new URLSearchParams(location.search),
        request,
        cookies: response.cookies,
        response: response.control,
        session: response.session,
      },
    )
  } catch (error) {
    await release()
    await response.applyTo(reply)
    if (isRedirect(error)) return answers.answerSuccess(request, reply, error.location)
    if (isNotFound(error)) return answers.sendProblem(request, reply, 404, ErrorCode.NOT_FOUND, NO_PAGE)
    if (isHttpError(error) && error.status < 500) {
      return answers.sendProblem(request, reply, error.status, error.code, error.expose ? error.message : 'The request was refused.')
    }
    const { digest } = faultOf(request, error, 'action failed', {
      ...(match ? { routeId: match.id } : {}),
      ...(found.owner.kind === 'layout' ? { layoutId: found.owner.id } : {}),
      action: name,
    })
    return answers.sendProblem(request, reply, 500, ErrorCode.INTERNAL, 'Internal server error', { digest, error })
  }
  await release()

  await response.applyTo(reply)
  if (outcome.ok) return answers.answerSuccess(request, reply, outcome.redirect ?? location.key)
  return answers.answerInvalid(request, reply, view, location, {
    action: name,
    fieldErrors: outcome.fieldErrors as Record<string, string>,
    ...(outcome.formError ? { formError: outcome.formError } : {}),
    values,
  })
}
