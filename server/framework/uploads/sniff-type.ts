/** What a file is, by its first bytes: a client can declare any type, so a `.png` that is really a script is refused. */
import type { UploadType } from '../../../shared/framework/uploads.js'

/** A Record: a type added to UPLOAD_TYPES must say how it is recognised. */
const SIGNATURES: Readonly<Record<UploadType, Buffer>> = {
  'image/png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  'image/jpeg': Buffer.from([0xff, 0xd8, 0xff]),
  'application/pdf': Buffer.from('%PDF-', 'latin1'),
}

export const SNIFF_BYTES = Math.max(...Object.values(SIGNATURES).map((signature) => signature.length))

export function sniffType(head: Buffer): UploadType | undefined {
  for (const [type, signature] of Object.entries(SIGNATURES) as Array<[UploadType, Buffer]>) {
    if (head.length >= signature.length && head.subarray(0, signature.length).equals(signature)) return type
  }
  return undefined
}
