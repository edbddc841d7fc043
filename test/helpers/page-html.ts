/** Reading what a document carries, as the browser would. */

/** The page's payload: the JSON in the document's bootstrap script, parsed. Throws if the document has none. */
export function bootstrapOf(html: string): any {
  const match = /<script type="application\/json" id="__page_data"(?: nonce="[^"]+")?>([^]*?)<\/script>/.exec(html)
  if (!match) throw new Error('no bootstrap script in the page')
  return JSON.parse(match[1]!)
}
