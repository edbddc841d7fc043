/**
 * File fields of server actions (docs/architecture.md, "Server actions"): what a route
 * declares for them and what an action receives. Both sides read the declaration: the
 * server enforces it, `<Form>` sends the form as multipart and hints `accept`.
 */

/**
 * The content types a file field may allow. Only types the server can recognise by
 * their first bytes (server/framework/uploads/sniff-type.ts) are here, so a declared type is
 * always checked against the file's content, not just its name.
 */
export const UPLOAD_TYPES = ['image/png', 'image/jpeg', 'application/pdf'] as const
export type UploadType = (typeof UPLOAD_TYPES)[number]

/** One file field: which types it takes and how large one file may be. */
export interface FileRule {
  readonly types: readonly UploadType[]
  readonly maxBytes: number
}

/** An action's file fields by name: `{ attachment: { types: ['application/pdf'], maxBytes: 5 * MiB } }`. */
export type FileFieldsDecl = { readonly [field: string]: FileRule }

/** A route's file fields, by action (only actions that take files are named). */
export type FilesDecl = { readonly [action: string]: FileFieldsDecl }

/** 1 MiB, for writing limits readably: `maxBytes: 5 * MiB`. */
export const MiB = 1024 * 1024

/**
 * A file an action received: already checked against its field's rule and stored in
 * a temporary file at `path`, which is removed once the action is over (copy it to
 * keep it).
 */
export interface UploadedFile {
  /** The name the browser gave (its last path segment only); never used as a path. */
  readonly name: string
  /** The type its first bytes show, one of the field's `types`. */
  readonly type: UploadType
  readonly size: number
  /** Hex SHA-256 of its content, computed while it arrived. */
  readonly sha256: string
  /** Where it is stored for the length of the action (a random name in UPLOAD_DIR). */
  readonly path: string
}

/** Human names of the types, for messages that say what a field takes. */
const TYPE_NAMES: Readonly<Record<UploadType, string>> = {
  'image/png': 'PNG',
  'image/jpeg': 'JPEG',
  'application/pdf': 'PDF',
}

/** `PNG, JPEG or PDF`: what a field takes, in words. */
export function describeTypes(types: readonly UploadType[]): string {
  const names = types.map((type) => TYPE_NAMES[type])
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`
}

/** `5 MiB` or `1500 bytes`: a limit in words. */
export function describeBytes(bytes: number): string {
  return bytes >= MiB && bytes % (MiB / 4) === 0 ? `${bytes / MiB} MiB` : `${bytes} bytes`
}
