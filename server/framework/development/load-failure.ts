/** When the pages could not be loaded: the production 500, opening Vite's error overlay with the real error. */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { SERVER_ERROR_TEXT } from '../../../shared/framework/error-texts.js'
import type { DevError, ErrorPayload } from '../../../shared/framework/page-payload.js'
import { devOverlayFor, renderShellErrorDocument } from '../error-documents.js'
import { serverError } from '../failures.js'
import { NO_STORE } from '../error-responses.js'
import { devErrorOf } from '../render/resolve-page.js'
import { requestKindOf } from '../request-kinds.js'

/** What Vite attaches to a transform error: the overlay shows file, line and the code around it. */
interface ViteErrorFields {
  readonly id?: unknown
  readonly frame?: unknown
  readonly plugin?: unknown
  readonly loc?: unknown
}

export function overlayErrorOf(error: unknown): DevError {
  const fields = (typeof error === 'object' && error !== null ? error : {}) as ViteErrorFields
  const extra = Object.fromEntries(
    Object.entries({ id: fields.id, frame: fields.frame, plugin: fields.plugin, loc: fields.loc }).filter(([, v]) => v !== undefined),
  )
  return { ...devErrorOf(error), ...extra }
}

export function sendLoadFailure(request: FastifyRequest, reply: FastifyReply, error: unknown, buildId: string): FastifyReply {
  const { digest } = serverError(request, error, 'the pages could not be loaded')
  const devError = overlayErrorOf(error)
  reply.code(500).header('cache-control', NO_STORE)
  if (requestKindOf(request) === 'data') {
    const payload: ErrorPayload = { kind: 'error', status: 500, digest, buildId, devError }
    return reply.type('application/json; charset=utf-8').send(JSON.stringify(payload))
  }
  return reply.type('text/html; charset=utf-8').send(renderShellErrorDocument(SERVER_ERROR_TEXT, digest, devOverlayFor(reply, devError)))
}
