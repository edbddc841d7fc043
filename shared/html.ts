/**
 * Making text safe for the places it goes in an HTML document.
 */

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}

/** Escapes text for an HTML text node or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch]!)
}

const SCRIPT_ESCAPES: Record<string, string> = {
  '<': '\\u003c',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
}

/**
 * JSON that can sit inside `<script type="application/json">`: `<` is escaped so no
 * `</script>` or `<!--` can end or confuse the element, and U+2028/U+2029 so the text
 * stays valid if it is ever evaluated as JavaScript. `JSON.parse` reads it back as is.
 */
export function serializeForScript(value: unknown): string {
  const json = JSON.stringify(value)
  // Most payloads need no escape: a scan is much cheaper than a replace that copies.
  return NEEDS_ESCAPE.test(json) ? json.replace(/[<\u2028\u2029]/g, (ch) => SCRIPT_ESCAPES[ch]!) : json
}

const NEEDS_ESCAPE = /[<\u2028\u2029]/
