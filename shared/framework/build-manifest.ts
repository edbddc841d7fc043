/** What the client build (scripts/build.ts) tells the server. URLs are absolute paths. */
export interface BuildManifest {
  /** A hash of every output file: the same sources give the same id on every instance. */
  readonly buildId: string
  readonly entry: ChunkFiles
  readonly css: readonly string[]
  readonly routes: Readonly<Record<string, ChunkFiles>>
  /** `npm run dev` only: Vite's client and React Refresh's preamble, run before the entry. */
  readonly devScripts?: readonly string[]
}

export interface ChunkFiles {
  readonly file: string
  /** Preloaded: the browser would otherwise discover them late. */
  readonly imports: readonly string[]
}
