import t from 'tap'
import { definedPage } from '../../client/framework/page-module.js'
import { clientApp } from '../../client/application.js'
import { routes } from '../../shared/routes.js'

// The browser hydrates the first page with the module definePage recorded (the page's
// chunk is the document's script) and loads later pages by importing the chunk's
// default export: for every page the two must be one object.
t.test("every page's default export is the module definePage recorded for its route", async (t) => {
  for (const [id, load] of Object.entries(clientApp.pages)) {
    const { default: module } = await load()
    t.equal(definedPage(routes[id as keyof typeof routes]), module, id)
  }
})

t.test('a route whose chunk has not run has no defined page', async (t) => {
  t.equal(definedPage({ pattern: '/never-defined', mode: 'static' } as never), undefined)
})
