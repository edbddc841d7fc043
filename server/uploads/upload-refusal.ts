/**
 * Why a multipart form was refused while it arrived: a status, our code, our words,
 * and the file field it concerns when there is one (a wrong type can then be shown
 * next to that field instead of on an error page).
 */
import type { Refusal } from '../http-errors.js'

export class UploadRefusal extends Error implements Refusal {
  readonly status: number
  readonly code: string
  readonly field: string | undefined

  constructor(refusal: Refusal, field?: string) {
    super(refusal.message)
    this.name = 'UploadRefusal'
    this.status = refusal.status
    this.code = refusal.code
    this.field = field
  }
}

export function isUploadRefusal(error: unknown): error is UploadRefusal {
  return error instanceof UploadRefusal
}
