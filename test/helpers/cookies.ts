/** The cookies an answer sets, as tests read them. */

type Answer = { readonly headers: Readonly<Record<string, unknown>> }

/** Every Set-Cookie line of an answer. */
export function setCookies(answer: Answer): string[] {
  const header = answer.headers['set-cookie']
  return header === undefined ? [] : Array.isArray(header) ? (header as string[]) : [String(header)]
}

/** The Set-Cookie line of the session cookie ('' when the answer sets none). */
export function sessionSetCookie(answer: Answer): string {
  return setCookies(answer).find((line) => line.startsWith('session=')) ?? ''
}

/** The session cookie as the next request sends it back (`session=...`). */
export function sessionCookie(answer: Answer): string {
  return sessionSetCookie(answer).split(';')[0]!
}
