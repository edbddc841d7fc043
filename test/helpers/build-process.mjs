/**
 * `node test/helpers/build-process.mjs <kind>...`: makes those test builds if need be
 * (test/helpers/build.ts); scripts/test.ts starts one such process per build, to make
 * them side by side.
 *
 * Plain Node, not `node --import tsx`: Vite (and Rollup) are loaded first, and only then
 * is TypeScript support registered for the build code. Under tsx's hooks each of their
 * hundreds of modules is a round trip to the hooks' thread: about a second more per build.
 */
await import('vite')
const { register } = await import('tsx/esm/api')
register()
const { buildFromCommandLine } = await import('./build.ts')
await buildFromCommandLine(process.argv.slice(2))
