/**
 * Why a multipart form was refused while it arrived: a status, our code, our words,
 * and the file field it concerns when there is one. A refusal with a `fieldMessage`
 * (a wrong type, an empty file) can be shown next to that field, the rest of the form
 * kept, instead of on an error page.
 */
import type { ClientError } from '../error-registry.js'

export class UploadRefusal extends Error implements ClientError {
  readonly status: number
  readonly code: string
  readonly field: string | undefined
  /** What to tell the user next to the file input, when the form is shown again. */
  readonly fieldMessage: string | undefined

  constructor(refusal: ClientError, field?: string, fieldMessage?: string) {
    super(refusal.message)
    this.name = 'UploadRefusal'
    this.status = refusal.status
    this.code = refusal.code
    this.field = field
    this.fieldMessage = fieldMessage
  }
}

export function isUploadRefusal(error: unknown): error is UploadRefusal {
  return error instanceof UploadRefusal
}
