/**
 * What the client build gives wouter for `use-sync-external-store/shim`: React's own
 * hook. The shim exists for React before 18; on React 19 it only forwards to this
 * hook, after shipping its fallback to every browser (scripts/build.ts aliases it).
 */
export { useSyncExternalStore } from 'react'
