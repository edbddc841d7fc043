/**
 * A gate in front of the server, in Chromium: requests that match are sent to the server
 * at once, one after another in the order the page made them, but their answers are held
 * until the test lets each through. What a slow network does, on cue.
 */
import type { APIResponse, Page } from 'playwright-core'
import { waitUntil } from './wait.js'

export interface Gate {
  /** How many matching requests the page has made. */
  readonly count: number
  /** Waits until the page has made `n` matching requests. */
  seen(n: number): Promise<void>
  /** Lets the answer of the `index`th matching request (from 0) through, once it was made and the server gave it. */
  release(index: number): Promise<void>
  /** Lets every held answer through, and every later one at once. */
  open(): Promise<void>
}

export async function gate(page: Page, url: string | RegExp, method: 'GET' | 'POST'): Promise<Gate> {
  const answers: Array<{ answer: Promise<APIResponse>; fulfil: (response: APIResponse) => Promise<void>; released: boolean }> = []
  let inOrder: Promise<unknown> = Promise.resolve()
  let opened = false
  await page.route(url, async (route) => {
    if (route.request().method() !== method) return route.fallback()
    const answer = inOrder.then(() => route.fetch())
    inOrder = answer.catch(() => {})
    const held = { answer, fulfil: (response: APIResponse) => route.fulfill({ response }), released: opened }
    answers.push(held)
    if (opened) await held.fulfil(await answer)
  })
  const seen = (n: number) => waitUntil(() => answers.length >= n, `${n} requests reached the gate for ${String(url)}`)
  const release = async (index: number) => {
    // A click's request reaches the gate some ticks after the click resolves (the form reads
    // its fields, asks its confirm): wait for it rather than race it.
    await seen(index + 1)
    const held = answers[index]!
    if (held.released) return
    held.released = true
    await held.fulfil(await held.answer)
  }
  return {
    get count() {
      return answers.length
    },
    seen,
    release,
    async open() {
      opened = true
      for (const [index] of answers.entries()) await release(index)
    },
  }
}
