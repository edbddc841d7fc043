/**
 * What the client build (scripts/build.ts) tells the server: the build id and, for the
 * entry and every route, the hashed files to preload. URLs are absolute paths.
 */
export interface BuildManifest {
  /** A hash of every output file: the same sources give the same id on every instance. */
  readonly buildId: string
  readonly entry: ChunkFiles
  readonly css: readonly string[]
  readonly routes: Readonly<Record<string, ChunkFiles>>
  /**
   * `npm run dev` only: module scripts every document runs before the entry (Vite's
   * client and React Refresh's preamble). Production builds have none.
   */
  readonly devScripts?: readonly string[]
}

export interface ChunkFiles {
  /** The chunk itself. */
  readonly file: string
  /** Chunks it imports statically, which the browser would otherwise discover late. */
  readonly imports: readonly string[]
}
