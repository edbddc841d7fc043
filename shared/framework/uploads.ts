/** File fields of server actions (docs/architecture.md, "Server actions"): the server enforces them, `<Form>` hints `accept`. */

/** Only types the server recognises by their first bytes (server/framework/uploads/sniff-type.ts), so content is checked, not names. */
export const UPLOAD_TYPES = ['image/png', 'image/jpeg', 'application/pdf'] as const
export type UploadType = (typeof UPLOAD_TYPES)[number]

export interface FileRule {
  readonly types: readonly UploadType[]
  readonly maxBytes: number
}

/** `{ attachment: { types: ['application/pdf'], maxBytes: 5 * MiB } }` */
export type FileFieldsDecl = { readonly [field: string]: FileRule }

/** Only actions that take files are named. */
export type FilesDecl = { readonly [action: string]: FileFieldsDecl }

export const MiB = 1024 * 1024

/** Stored at `path` until the action is over, then removed: copy it to keep it. */
export interface UploadedFile {
  /** The browser's name (last path segment only); never used as a path. */
  readonly name: string
  /** What its first bytes show. */
  readonly type: UploadType
  readonly size: number
  /** Computed while it arrived. */
  readonly sha256: string
  readonly path: string
}

const TYPE_NAMES: Readonly<Record<UploadType, string>> = {
  'image/png': 'PNG',
  'image/jpeg': 'JPEG',
  'application/pdf': 'PDF',
}

export function describeTypes(types: readonly UploadType[]): string {
  const names = types.map((type) => TYPE_NAMES[type])
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`
}

export function describeBytes(bytes: number): string {
  return bytes >= MiB && bytes % (MiB / 4) === 0 ? `${bytes / MiB} MiB` : `${bytes} bytes`
}
