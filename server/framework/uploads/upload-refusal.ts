/** Why a multipart form was refused while it arrived. */
import type { ClientError } from '../error-registry.js'

export class UploadRefusal extends Error implements ClientError {
  readonly status: number
  readonly code: string
  readonly field: string | undefined
  /** When set, shown next to the file input with the rest of the form kept, not on an error page. */
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
