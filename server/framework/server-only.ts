/**
 * Server-only values (docs/guide/server-only-values.md, docs/decisions/044-server-only-values.md):
 * what the product marks where it reads it from its store (a record, as React's
 * `experimental_taintObjectReference`; a secret string, as `experimental_taintUniqueValue`)
 * can never be written into an answer for the browser. `toBrowserJson` is the one
 * serializer of what is sent (page data in the document and at /_data, deferred parts,
 * action answers); /api answers, which Fastify serializes by their schemas, are checked
 * by `refuseServerOnly` before that.
 *
 * Cost: a marked record carries its own guard, a `toJSON` that refuses while `toBrowserJson`
 * runs, so an answer without one pays nothing more than JSON.stringify (a walk of a 12 KB
 * payload costs a third of its stringify; a replacer, more than the stringify).
 * A marked string cannot carry anything: while any is marked, the answer is walked once
 * for them. A path is looked for only once something was refused.
 *
 * The registry is one per process, on `globalThis`: in development the product's modules
 * (and the renderer) are loaded again by Vite's module runner, each with its own copy of
 * this module, and a mark made in one copy must hold in all.
 */

declare const serverOnlyBrand: unique symbol

/**
 * A record marked server-only. Page data's types refuse it (`BrowserBound`), so a loader
 * returning one does not compile; the run-time check stands for everything the types miss
 * (a spread copy, `unknown`, a cast).
 */
export type ServerOnly<T extends object> = T & { readonly [serverOnlyBrand]: true }

/**
 * What a loader may return for data of type `T`: the same, where no object is a
 * `ServerOnly` record (each level takes the brand only as absent).
 */
export type BrowserBound<T> =
  T extends PromiseLike<infer V>
    ? PromiseLike<BrowserBound<V>>
    : T extends (...args: never[]) => unknown
      ? T
      : T extends object
        ? { [K in keyof T]: BrowserBound<T[K]> } & { readonly [serverOnlyBrand]?: never }
        : T

interface MarkedValue {
  readonly message: string
  /** Marks held: one per lifetime still alive, plus one for a mark without a lifetime. */
  holders: number
}

interface Registry {
  readonly records: WeakMap<object, string>
  /** Records ever marked (a WeakMap cannot say how many it holds): none, and /api answers are not walked. */
  recordsMarked: number
  readonly values: Map<string, MarkedValue>
  /** True while `toBrowserJson` runs its JSON.stringify: the records' guards refuse then. */
  serializing: boolean
}

const REGISTRY_KEY = Symbol.for('ssr-app.server-only')

const registry: Registry =
  ((globalThis as Record<symbol, unknown>)[REGISTRY_KEY] as Registry | undefined) ??
  ((globalThis as Record<symbol, unknown>)[REGISTRY_KEY] = {
    records: new WeakMap(),
    recordsMarked: 0,
    values: new Map(),
    serializing: false,
  } satisfies Registry)

/** A value whose lifetime was collected is released (a session id marked for its request, say). */
const lifetimes = new FinalizationRegistry<string>((value) => release(value))

function release(value: string): void {
  const marked = registry.values.get(value)
  if (marked && --marked.holders === 0) registry.values.delete(value)
}

/** Thrown where an answer would carry a server-only value: a server error (500, digest) like any other. */
export class ServerOnlyError extends Error {
  /** Where in the answer, as `data.note.owner`. */
  readonly path: string
  constructor(answer: string, path: string, message: string) {
    super(`${answer} would send a server-only value to the browser, at ${path}: ${message}`)
    this.name = 'ServerOnlyError'
    this.path = path
  }
}

/**
 * Marks a record server-only, for as long as it lives: any answer for the browser that
 * holds this very object is refused, with `message`. A copy (`{ ...record }`) is another
 * object: mark the secrets in it too (`markServerOnlyValue`), or hand out a picked view.
 * The record gets a non-enumerable `toJSON` (the inherited one still serializes it
 * everywhere else); a frozen record cannot, so it must be marked before it is frozen.
 */
export function markServerOnly<T extends object>(record: T, message: string): ServerOnly<T> {
  if (registry.records.has(record)) return record as ServerOnly<T>
  if (!Object.isExtensible(record))
    throw new TypeError(`A frozen or sealed object cannot be marked server-only: mark it before freezing it (${message})`)
  const inherited = (record as { toJSON?: unknown }).toJSON
  Object.defineProperty(record, 'toJSON', {
    configurable: true,
    enumerable: false,
    writable: false,
    value: function refuseInBrowserAnswer(this: object, key: string): unknown {
      if (registry.serializing) throw new RecordRefused()
      return typeof inherited === 'function' ? inherited.call(this, key) : this
    },
  })
  registry.records.set(record, message)
  registry.recordsMarked++
  return record as ServerOnly<T>
}

/**
 * Marks a string server-only: a hash, a token, a session id, a private file's path; any
 * answer for the browser that holds an equal string is refused, with `message`. Only
 * values that nothing else could equal: an email address or a name would refuse every
 * page that shows it. With `lifetime`, the mark ends once that object is collected (the
 * request a session id came with); without, it lasts as long as the process.
 */
export function markServerOnlyValue(value: string, message: string, lifetime?: object): void {
  if (typeof value !== 'string' || value.length === 0) throw new TypeError(`Only a non-empty string can be marked server-only (${message})`)
  const marked = registry.values.get(value)
  if (marked) marked.holders++
  else registry.values.set(value, { message, holders: 1 })
  if (lifetime !== undefined) lifetimes.register(lifetime, value)
}

/** True when `value` is a marked record or string. */
export function isServerOnly(value: unknown): boolean {
  if (typeof value === 'string') return registry.values.has(value)
  return typeof value === 'object' && value !== null && registry.records.has(value)
}

/** Told by its name: the guard may come from another copy of this module (development), whose class is another. */
class RecordRefused extends Error {
  constructor() {
    super('A server-only record reached an answer for the browser')
    this.name = 'ServerOnlyRecordRefused'
  }
}

const isRecordRefused = (error: unknown) => error instanceof Error && error.name === 'ServerOnlyRecordRefused'

/**
 * `value` as JSON for the browser, or a ServerOnlyError naming `answer` (`The page data of
 * route "note"`) and where the value is in it. What JSON.stringify itself refuses (a cycle,
 * a BigInt) is thrown as it is.
 */
export function toBrowserJson(value: unknown, answer: string, root = ''): string {
  let json: string
  // Restored, not cleared: a value's own toJSON may call this too.
  const outer = registry.serializing
  registry.serializing = true
  try {
    json = JSON.stringify(value)
  } catch (error) {
    if (!isRecordRefused(error)) throw error
    throw refusal(value, answer, root)
  } finally {
    registry.serializing = outer
  }
  // The walk that builds paths costs as much as the stringify: only after this one found something.
  if (registry.values.size > 0 && holdsMarked(value, '', 0)) throw refusal(value, answer, root)
  return json
}

/** Throws a ServerOnlyError when `value` holds a marked record or string; for what is serialized elsewhere. */
export function refuseServerOnly(value: unknown, answer: string): void {
  if (registry.recordsMarked === 0 && registry.values.size === 0) return
  if (holdsMarked(value, '', 0)) throw refusal(value, answer, '')
}

function refusal(value: unknown, answer: string, root: string): ServerOnlyError {
  const found = findServerOnly(value, root)
  // The walk reads what JSON.stringify reads; should they ever disagree, the refusal still stands.
  return new ServerOnlyError(answer, found?.path ?? '(unknown)', found?.message ?? 'a server-only record')
}

interface Found {
  readonly path: string
  readonly message: string
}

/** JSON nests only so deep before it is a cycle: a walk of one stops there, as JSON.stringify would throw. */
const MAX_DEPTH = 1000

/**
 * The first marked record or string in `value`, in the order JSON.stringify writes it,
 * with its path; what JSON leaves out (functions, undefined, symbol keys) is not looked
 * at, and a value with a `toJSON` is looked at as it would be written.
 */
export function findServerOnly(value: unknown, root = ''): Found | undefined {
  return walk(value, '', root, 0)
}

/** How a page's payload is named in a refusal: by its route. */
export function pageAnswer(payload: { readonly routeId?: string | undefined }): string {
  return payload.routeId === undefined ? 'The page data of a path no route matched' : `The page data of route "${payload.routeId}"`
}

/** Whether `value` holds a marked record or string, read as `walk` reads it, without making a path. */
function holdsMarked(value: unknown, key: string | number, depth: number): boolean {
  if (typeof value === 'string') return registry.values.has(value)
  if (typeof value !== 'object' || value === null || depth > MAX_DEPTH) return false
  if (registry.records.has(value)) return true
  const toJSON = (value as { toJSON?: unknown }).toJSON
  if (typeof toJSON === 'function') {
    const written: unknown = toJSON.call(value, String(key))
    if (written !== value) return holdsMarked(written, key, depth + 1)
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (holdsMarked(value[i], i, depth + 1)) return true
    return false
  }
  for (const name in value) {
    if (Object.hasOwn(value, name) && holdsMarked((value as Record<string, unknown>)[name], name, depth + 1)) return true
  }
  return false
}

function walk(value: unknown, key: string, path: string, depth: number): Found | undefined {
  if (typeof value === 'string') {
    const marked = registry.values.get(value)
    return marked && { path: path || '(the whole answer)', message: marked.message }
  }
  if (typeof value !== 'object' || value === null || depth > MAX_DEPTH) return undefined
  const record = registry.records.get(value)
  if (record !== undefined) return { path: path || '(the whole answer)', message: record }
  const toJSON = (value as { toJSON?: unknown }).toJSON
  if (typeof toJSON === 'function') {
    const written: unknown = toJSON.call(value, key)
    if (written !== value) return walk(written, key, path, depth + 1)
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = walk(value[i], String(i), `${path}[${i}]`, depth + 1)
      if (found) return found
    }
    return undefined
  }
  for (const name in value) {
    if (!Object.hasOwn(value, name)) continue
    const found = walk((value as Record<string, unknown>)[name], name, path + pathPart(name, path === ''), depth + 1)
    if (found) return found
  }
  return undefined
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/

function pathPart(name: string, first: boolean): string {
  if (IDENTIFIER.test(name)) return first ? name : `.${name}`
  return `[${JSON.stringify(name)}]`
}
