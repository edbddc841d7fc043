/**
 * fast-check arbitraries for the URLs real traffic brings to the production routes:
 * every route's path (with params that pass and fail their checks), each character
 * encoded or not, in either hex case, and query strings with non-ASCII text, spaces
 * as `+` or `%20`, reserved characters and repeated keys. Every URL is a valid
 * request target (ASCII, no space, no `#`) that a browser could have sent.
 */
import fc from 'fast-check'

const UNRESERVED = /^[A-Za-z0-9\-._~]$/

function percentEncode(char: string, upper: boolean): string {
  return [...new TextEncoder().encode(char)]
    .map((byte) => {
      const hex = byte.toString(16).padStart(2, '0')
      return `%${upper ? hex.toUpperCase() : hex}`
    })
    .join('')
}

/** Text encoded character by character: unreserved ones left as they are or encoded, the rest always encoded. */
function encodedText(text: string, choices: readonly boolean[], space: '%20' | '+'): string {
  return [...text]
    .map((char, i) => {
      const choice = choices[i % Math.max(1, choices.length)] ?? false
      if (char === ' ' && space === '+') return '+'
      if (UNRESERVED.test(char) && choice) return char
      if (UNRESERVED.test(char) && !choice) return percentEncode(char, i % 2 === 0)
      return percentEncode(char, choice)
    })
    .join('')
}

/** Text as people and programs put it into URLs: ASCII, symbols, non-ASCII, emoji. */
const text = fc.oneof(
  fc.string({ minLength: 1, maxLength: 12 }),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }),
  fc.constantFrom('名', 'шеллы', '100% true', 'a/b', 'a?b', 'a#b', 'a+b', '..', '😀', 'ä', '%', '%25'),
)

const encodingChoices = fc.array(fc.boolean(), { minLength: 1, maxLength: 8 })

// Dot segments are left out: light-my-request (app.inject) resolves them before the
// app sees the URL, as a browser would; the raw-socket tests cover them.
const segment = fc
  .tuple(
    text.filter((value) => value !== '.' && value !== '..'),
    encodingChoices,
  )
  .map(([value, choices]) => encodedText(value, choices, '%20'))

const itemId = fc.oneof(fc.integer({ min: 0, max: 999_999 }).map(String), fc.bigInt({ min: 10n ** 15n, max: 10n ** 18n }).map(String))

/** A path that names one of the production routes, or none of them. */
const path = fc.oneof(
  fc.constantFrom('/', '/about', '/contact'),
  fc.tuple(itemId, encodingChoices).map(([id, choices]) => `/items/${encodedText(id, choices, '%20')}`),
  segment.map((s) => `/items/${s}`),
  fc.array(segment, { minLength: 1, maxLength: 3 }).map((segments) => `/${segments.join('/')}`),
)

const pair = fc
  .tuple(text, fc.oneof(text, fc.constant('')), encodingChoices, fc.constantFrom('%20' as const, '+' as const), fc.boolean())
  .map(([key, value, choices, space, bare]) => {
    const name = encodedText(key, choices, space)
    return bare && value === '' ? name : `${name}=${encodedText(value, choices, space)}`
  })

const query = fc.oneof(
  fc.constant(''),
  fc.constant('?'),
  fc.array(pair, { minLength: 1, maxLength: 4 }).map((pairs) => `?${pairs.join('&')}`),
  pair.map((p) => `?${p}&${p}`),
)

/** A request target for the production app: path, then maybe a query. */
export const productionUrl = fc.tuple(path, query).map(([p, q]) => p + q)
