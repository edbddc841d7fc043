/** Asked while a run is under way, it runs once more after it: that run may have begun before what the askers want seen. */
export function coalesced(run: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined
  let again: Promise<void> | undefined
  const start = (): Promise<void> => {
    if (running) {
      const next = () => {
        again = undefined
        return start()
      }
      again ??= running.then(next, next)
      return again
    }
    running = run().finally(() => (running = undefined))
    return running
  }
  return start
}
