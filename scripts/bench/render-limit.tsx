/**
 * The render limit: React rendering the /items/7 tree to a string in a loop, on one
 * core, with nothing else. Prints the renders per second.
 *
 * Each string is read once (one character search) before the next render. React
 * builds its output by concatenation, which V8 keeps as a tree of thousands of pieces
 * until the string is first read; copying them into one string is React's deferred
 * work (about 28 us for this page), paid by anything that writes the HTML, and a loop
 * that dropped the string unread would not count it.
 */
import { renderToString } from 'react-dom/server'
import { AppRoot } from '../../client/framework/view/app-root.js'
import { singlePageSource } from '../../client/framework/view/page-source.js'
import items from '../../client/pages/items.js'
import { application } from '../../server/application.js'

const appDefinition = application.definition
// A visitor without a session: what a benchmark's requests are.
const perRequest = {
  request: {} as never,
  cookies: {},
  response: { setCookie() {}, deleteCookie() {}, setHeader() {} },
  session: { get() {}, set() {}, end() {}, regenerate() {}, flash() {}, takeFlash: () => undefined },
}
const data = await appDefinition.serverPages.items.loader({ params: { id: '7' }, search: {}, searchParams: new URLSearchParams(), ...perRequest })
const layoutData = await appDefinition.serverLayouts.items.loader(perRequest)
const page = {
  payload: {
    kind: 'page' as const,
    status: 200 as const,
    buildId: 'bench',
    routeId: 'items',
    mode: 'dynamic' as const,
    params: { id: '7' },
    data,
    layouts: { items: layoutData },
  },
  module: items,
}
const layouts = { router: appDefinition.router, modules: appDefinition.clientLayouts }
// The same tree the server renders, the product's layouts included.
let found = 0
const render = () => {
  const html = renderToString(<AppRoot source={singlePageSource('/items/7', page)} layouts={layouts} ssrPath="/items/7" ssrSearch="" />)
  // The string's first read: V8 joins React's pieces into one string here.
  found += html.indexOf('</table>')
}
for (let i = 0; i < 300; i++) render() // warm up
const seconds = 5
let count = 0
const start = performance.now()
while (performance.now() - start < seconds * 1000) {
  render()
  count++
}
if (found <= 0) throw new Error('the page has no table: not the /items/7 tree')
console.log(JSON.stringify({ rendersPerSecond: Math.round(count / ((performance.now() - start) / 1000)) }))
