/**
 * The render limit: React rendering the /items/7 tree to a string in a loop, on one
 * core, with nothing else. Prints the renders per second.
 */
import { renderToString } from 'react-dom/server'
import { AppRoot } from '../../client/app/app-root.js'
import { singlePageSource } from '../../client/app/page-source.js'
import items from '../../client/pages/items.js'
import { appDefinition } from '../../server/pages/index.js'

const data = await appDefinition.serverPages.items.loader({
  params: { id: '7' },
  searchParams: new URLSearchParams(),
  request: {} as never,
  cookies: {},
  response: { setCookie() {}, deleteCookie() {}, setHeader() {} },
  session: { get() {}, set() {}, end() {}, flash() {}, takeFlash: () => undefined },
})
const layoutData = await appDefinition.serverLayouts.items.loader({ request: {} as never })
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
const render = () =>
  renderToString(<AppRoot source={singlePageSource('/items/7', page)} layouts={layouts} ssrPath="/items/7" ssrSearch="" />)
for (let i = 0; i < 300; i++) render() // warm up
const seconds = 5
let count = 0
const start = performance.now()
while (performance.now() - start < seconds * 1000) {
  render()
  count++
}
console.log(JSON.stringify({ rendersPerSecond: Math.round(count / ((performance.now() - start) / 1000)) }))
