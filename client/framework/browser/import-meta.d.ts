/**
 * What Vite defines on `import.meta` that the browser runtime reads: `DEV` is true under
 * `npm run dev` and replaced by `false` in the build, where the code it guards is dropped.
 */
declare global {
  interface ImportMeta {
    readonly env: { readonly DEV: boolean }
  }
}

export {}
