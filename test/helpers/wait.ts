/**
 * Waits for a condition the test cannot be told about (requests seen by an
 * interception handler): checks it on every turn of the event loop, fails after
 * `timeoutMs`. Never a fixed sleep: it returns as soon as the condition holds.
 */
export async function waitUntil(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting until ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}
