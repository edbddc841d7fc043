/**
 * What a secret looks like in each place an answer could carry it: raw, in JSON, in the
 * bootstrap script's JSON (`<`, U+2028 and U+2029 escaped), HTML-escaped (both ways of
 * writing `'`), percent-encoded. A test that a secret never comes back looks for each.
 */
export function formsOf(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1)
  const html = secret.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
  return [
    secret,
    json,
    json
      .replace(/</g, '\\u003c')
      .replace(/\u2028/g, '\\u2028')
      .replace(/\u2029/g, '\\u2029'),
    html.replace(/'/g, '&#x27;'),
    html.replace(/'/g, '&#39;'),
    encodeURIComponent(secret),
    new URLSearchParams({ s: secret }).toString().slice(2),
  ]
}
