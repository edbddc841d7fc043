/** The fields and files of a form post; a refusal comes back as one, for the caller to answer. */
import type { FastifyRequest } from 'fastify'
import type { RouteMatch } from '../../../shared/framework/route-table.js'
import { ACTION_BODY_LIMIT } from '../body-limits.js'
import { errors, type ClientError } from '../error-registry.js'
import { receiveMultipart, type ReceivedForm } from '../uploads/receive-multipart.js'
import { isUploadRefusal, UploadRefusal } from '../uploads/upload-refusal.js'
import { wantsJson } from './responses.js'
import type { FoundAction } from './find-action.js'

export { ACTION_BODY_LIMIT } from '../body-limits.js'

export const FORM_TYPE = 'application/x-www-form-urlencoded'

export interface FormSource {
  readonly multipart: boolean
  readonly match: RouteMatch | null
  readonly uploads: { readonly dir: string; readonly maxBytes: number }
  readonly findAction: (name: string | null) => FoundAction | ClientError
}

export async function readForm(request: FastifyRequest, { multipart, match, uploads, findAction }: FormSource): Promise<ReceivedForm | ClientError> {
  if (!multipart) return { fields: request.body as URLSearchParams, files: new Map(), refusedFiles: {} }
  // Only a page whose actions take files reads multipart: for the others it is refused unread.
  if (Object.keys(match?.route.files ?? {}).length === 0) {
    return errors.FORM_NOT_URLENCODED()
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
        if (!found.files) throw new UploadRefusal(errors.ACTION_TAKES_NO_FILES())
        return found.files
      },
    })
  } catch (error) {
    if (!isUploadRefusal(error)) throw error
    request.log.info({ code: error.code, status: error.status, field: error.field }, 'form with files refused')
    return { status: error.status, code: error.code, message: error.message }
  }
}
