/** Vite's `import.meta.env`: `DEV` becomes `false` in the build, where the code it guards is dropped. */
declare global {
  interface ImportMeta {
    readonly env: { readonly DEV: boolean }
  }
}

export {}
