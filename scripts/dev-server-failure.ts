/**
 * `npm run dev` only, loaded before scripts/dev-server.ts (`node --import`), so it is in
 * place even when the server's own modules fail to load (a syntax error saved in
 * server/): sends the supervisor (scripts/dev.ts) the error that ends the process,
 * which it shows in the browser until the next edit. Node still prints the error and
 * exits as it would without this: a monitor changes nothing.
 */
process.on('uncaughtExceptionMonitor', (error) => {
  const failed = error instanceof Error ? { message: error.message, stack: error.stack } : { message: String(error) }
  process.send?.({ failed })
})
