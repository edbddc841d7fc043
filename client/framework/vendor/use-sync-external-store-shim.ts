/** wouter's `use-sync-external-store/shim`, aliased here by scripts/build.ts: on React 19 it only forwards to this, after shipping its fallback. */
export { useSyncExternalStore } from 'react'
