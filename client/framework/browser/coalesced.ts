/**
 * `run`, made safe to ask for at any time: asked while a run is under way, it runs once
 * more after that one, for everyone who asked meanwhile (the run under way may have
 * begun before what they want it to see).
 */
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
