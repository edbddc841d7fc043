/**
 * The fields and files of a form post: the urlencoded body as Fastify parsed it, or a
 * multipart one read now, only for a page whose actions take files, its files checked
 * and stored as they arrive (server/framework/uploads/receive-multipart.ts). A refusal
 * comes back as one, for the caller to answer.
 */
import type { FastifyRequest } from 'fastify'
import { ErrorCode } from '../../../shared/framework/errors.js'
import type { RouteMatch } from '../../../shared/framework/route-table.js'
import type { Refusal } from '../http-errors.js'
import { receiveMultipart, type ReceivedForm } from '../uploads/receive-multipart.js'
import { isUploadRefusal, UploadRefusal } from '../uploads/upload-refusal.js'
import { wantsJson } from './answers.js'
import type { FoundAction } from './find-action.js'

/** The largest urlencoded form accepted, and the most text a multipart one may carry besides its files. */
export const ACTION_BODY_LIMIT = 1024 * 1024

export const FORM_TYPE = 'application/x-www-form-urlencoded'
export const URLENCODED_ONLY = `Forms must be sent as ${FORM_TYPE}.`

export interface FormSource {
  readonly multipart: boolean
  readonly match: RouteMatch | null
  /** Where files are kept while their action runs, and the most one form may have. */
  readonly uploads: { readonly dir: string; readonly maxBytes: number }
  readonly findAction: (name: string | null) => FoundAction | Refusal
}

export async function readForm(request: FastifyRequest, { multipart, match, uploads, findAction }: FormSource): Promise<ReceivedForm | Refusal> {
  if (!multipart) return { fields: request.body as URLSearchParams, files: new Map(), refusedFiles: {} }
  // Only a page whose actions take files reads multipart: for the others it is refused unread.
  if (Object.keys(match?.route.files ?? {}).length === 0) {
    return { status: 415, code: ErrorCode.UNSUPPORTED_MEDIA_TYPE, message: URLENCODED_ONLY }
  }
  try {
    return await receiveMultipart(request, {
      dir: uploads.dir,
      maxBytes: uploads.maxBytes,
      maxTextBytes: ACTION_BODY_LIMIT,
      // A browser without JavaScript can show a wrong type only as the page again, next to the field.
      readPastWrongType: !wantsJson(request),
      fileFieldsOf: (name) => {
        const found = findAction(name)
        if (!('handler' in found)) throw new UploadRefusal(found)
        if (!found.files)
          throw new UploadRefusal({
            status: 415,
            code: ErrorCode.UNSUPPORTED_MEDIA_TYPE,
            message: `This action takes no files: its form must be sent as ${FORM_TYPE}.`,
          })
        return found.files
      },
    })
  } catch (error) {
    if (!isUploadRefusal(error)) throw error
    request.log.info({ code: error.code, status: error.status, field: error.field }, 'form with files refused')
    return { status: error.status, code: error.code, message: error.message }
  }
}
