/**
 * The route table's contract at the type level: each `@ts-expect-error` below must
 * stay an error, or `npm run typecheck` fails. (The runtime assertion only keeps tap
 * counting this file.)
 */
import t from 'tap'
import { defineLayout, definePage } from '../../client/framework/page-module.js'
import { defineServerLayout, defineServerPage, type ServerLayouts } from '../../server/framework/page-definition.js'
import { href, layouts, routes, type AppLayouts } from '../../shared/routes.js'
import { guarded, layout, route, type ActionValueFields } from '../../shared/framework/route-table.js'
import { actionSuccess, type ActionState } from '../../shared/framework/actions.js'
import { Form } from '../../client/framework/view/form.js'
import { usePageData } from '../../client/framework/view/page-match.js'
import { SearchForm } from '../../client/framework/view/search-form.js'
import { fixtureRoutes } from '../fixtures/app/routes.js'
import type { UploadedFile } from '../../shared/framework/uploads.js'

// Never called: these lines exist for the type checker only.
export function misuses() {
  // An action's input is typed by its fields' schemas: builders and a valibot schema alike.
  defineServerPage(fixtureRoutes.booking, {
    loader: () => ({ text: 'Booking' }),
    actions: {
      book: ({ day, guests, room, breakfast, code, note }) => {
        const typed: [Date, number, 'single' | 'double', boolean, string, string | undefined] = [day, guests, room, breakfast, code, note]
        // @ts-expect-error: an optional field may be undefined
        const text: string = note
        // @ts-expect-error: guests is a number, as its schema parses it
        guests.trim()
        return typed && text ? actionSuccess() : actionSuccess()
      },
      register: ({ name, age }) => {
        const typed: [string, number] = [name, age]
        return typed ? actionSuccess() : actionSuccess()
      },
    },
  })
  defineServerPage(routes.items, {
    // @ts-expect-error: a loader must return the route's data type (title is a string)
    loader: () => ({ id: 1, title: 2, rows: [] }),
  })
  defineServerPage(routes.items, {
    // @ts-expect-error: params are the pattern's: /items/:id has no "slug"
    loader: ({ params }) => ({ id: 1, title: params.slug, rows: [] }),
  })
  definePage(routes.about, {
    title: () => 'About',
    // @ts-expect-error: the about page's data has no "rows"
    Component: ({ data }) => data.rows,
  })
  defineServerPage(routes.about, {
    // @ts-expect-error: a static page is rendered once for everyone: its loader gets no cookies
    loader: ({ cookies }) => ({ paragraph: String(cookies) }),
  })
  defineServerPage(routes.about, {
    // @ts-expect-error: ...and cannot set any on an answer that is shared
    loader: ({ response }) => ({ paragraph: String(response) }),
  })
  defineServerPage(routes.items, {
    // A dynamic page's loader may read and set both (this one compiles).
    loader: ({ cookies, response }) => {
      response.setCookie('seen', cookies.seen ?? '1')
      return { id: 1, title: '', rows: [] }
    },
  })
  defineServerLayout(layouts.items, {
    // @ts-expect-error: a layout's loader returns the layout's data type
    loader: () => ({ lists: [{ id: '1', title: 'One' }] }),
  })
  defineServerLayout(layouts.items, {
    // @ts-expect-error: a layout's data is shared by every page in it: its loader gets no params
    loader: ({ params }) => ({ lists: [{ id: Number(params.id), title: '' }] }),
  })
  defineServerLayout(layouts.items, {
    // @ts-expect-error: ...nor the query: the browser keeps it for pages of any URL
    loader: ({ searchParams }) => ({ lists: [{ id: Number(searchParams), title: '' }] }),
  })
  defineServerLayout(layouts.items, {
    // @ts-expect-error: a static layout's loader gets no cookies
    loader: ({ cookies }) => ({ lists: [{ id: 1, title: String(cookies) }] }),
  })
  // @ts-expect-error: the root layout declares a theme action: its handler is required
  defineServerLayout(layouts.root, {})
  // @ts-expect-error: the items layout has data: its server side is required
  const _missingItems: ServerLayouts<AppLayouts> = { root: { actions: { theme: () => ({ ok: true }) } } }
  defineLayout(layouts.items, {
    // @ts-expect-error: the items layout's data has no "rows"
    Component: ({ data }) => data.rows,
  })
  const rootLayout = layout()({ id: 'root', mode: 'static' })
  const dynamicLayout = layout()({ id: 'live', mode: 'dynamic', parent: rootLayout })
  // @ts-expect-error: a static page's answer is shared: it cannot sit in a dynamic layout
  route()({ pattern: '/p', mode: 'static', layout: dynamicLayout })
  // @ts-expect-error: nor can a static layout sit in a dynamic one
  layout()({ id: 'inner', mode: 'static', parent: dynamicLayout })
  route()({ pattern: '/p', mode: 'dynamic', layout: dynamicLayout }) // compiles
  // Deferred data (promises in the data): dynamic pages and layouts only.
  // @ts-expect-error: only a static page is the same for everyone: a dynamic one cannot be kept by a shared cache
  route<null>()({ pattern: '/mine', mode: 'dynamic', sharedCache: { maxAge: 60 } })
  route<null>()({ pattern: '/ours', mode: 'static', sharedCache: { maxAge: 60, staleWhileRevalidate: 30 } })
  // @ts-expect-error: a static page is rendered once and kept: its data cannot wait for a part
  route<{ later: Promise<string> }>()({ pattern: '/p', mode: 'static' })
  // @ts-expect-error: nor a static layout's
  layout<{ later: Promise<string> }>()({ id: 'late', mode: 'static', parent: rootLayout })
  route<{ later: Promise<string> }>()({ pattern: '/p', mode: 'dynamic' }) // compiles
  defineServerPage(routes.stats, {
    loader: ({ search }) => {
      // The declared query, parsed and typed: a number with a default (this line compiles).
      const tags: number = search.tags
      // @ts-expect-error: and only what the route declares
      void search.page
      return {
        id: 1,
        title: '',
        tagCount: tags,
        summary: { count: 0, lowest: 0, highest: 0, mean: 0 },
        slow: Promise.resolve({ median: 0, standardDeviation: 0, tags: [] }),
      }
    },
  })
  href('stats', { id: '7' }, { tags: 3 }) // compiles
  // @ts-expect-error: href() takes the query typed: "tags" is a number
  href('stats', { id: '7' }, { tags: '3' })
  // @ts-expect-error: nor a parameter the route does not declare
  href('stats', { id: '7' }, { sort: 'x' })
  // @ts-expect-error: a route without a declared query takes none
  href('about', {}, { q: 'x' })
  defineServerPage(routes.stats, {
    // @ts-expect-error: the deferred part is the promise of its type, not another
    loader: () => ({ id: 1, title: '', tagCount: 1, summary: { count: 0, lowest: 0, highest: 0, mean: 0 }, slow: Promise.resolve(1) }),
  })
  // Guards: never on what is shared, typed for what is beneath them.
  // @ts-expect-error: a static layout is shared by every visitor: it cannot be guarded
  layout()({ id: 'locked', mode: 'static', parent: rootLayout, guard: guarded<string>() })
  // @ts-expect-error: nor a static page
  route()({ pattern: '/p', mode: 'static', guard: guarded<string>() })
  // @ts-expect-error: a static page cannot sit in a guarded layout
  route()({ pattern: '/p', mode: 'static', layout: layouts.account })
  // @ts-expect-error: nor a static layout
  layout()({ id: 'inner', mode: 'static', parent: layouts.account })
  defineServerPage(routes.account, {
    loader: ({ guard }) => {
      // What the account layout's guard passes, typed (this line compiles).
      const email: string = guard.email
      // @ts-expect-error: and only that: an account has no "password"
      void guard.password
      return { email }
    },
  })
  defineServerPage(routes.items, {
    // @ts-expect-error: nothing guards the items page: its loader gets no guard value
    loader: ({ guard }) => guard,
  })
  // @ts-expect-error: the account layout declares a guard: its server side must give it
  defineServerLayout(layouts.account, { loader: () => ({ email: '' }), actions: { signOut: () => actionSuccess() } })
  // @ts-expect-error: a guard only where the table declares one
  defineServerLayout(layouts.items, { guard: () => 'x', loader: () => ({ lists: [] }) })
  defineServerPage(routes.contact, {
    loader: () => ({ thanks: null }),
    actions: {
      send: (input) => {
        // The declared file field is a checked, stored file or null (this line compiles).
        const attachment: UploadedFile | null = input.attachment
        // @ts-expect-error: a misspelled file field does not exist
        void input.attachmnet
        // @ts-expect-error: a file field is not a string
        void input.attachment.trim()
        return actionSuccess(attachment ? '/contact' : undefined)
      },
    },
  })
  route<null>()({
    pattern: '/upload',
    mode: 'dynamic',
    actions: { send: ['note'] },
    // @ts-expect-error: files only for the route's own actions ("sned" is not one)
    files: { sned: { photo: { types: ['image/png'], maxBytes: 1024 } } },
  })
  route<null>()({
    pattern: '/upload',
    mode: 'dynamic',
    actions: { send: ['note'] },
    // @ts-expect-error: only types the server recognises by their bytes (no GIF)
    files: { send: { photo: { types: ['image/gif'], maxBytes: 1024 } } },
  })
  // The shape of a sign-in form: its password goes to the action, and never comes back.
  const signIn = route<null>()({
    pattern: '/login',
    mode: 'dynamic',
    actions: { signIn: ['email', 'password', 'next'] },
    secrets: { signIn: ['password'] },
  })
  route<null>()({
    pattern: '/login',
    mode: 'dynamic',
    actions: { signIn: ['email', 'password'] },
    // @ts-expect-error: secret fields only for the route's own actions ("signOut" is not one)
    secrets: { signOut: ['password'] },
  })
  route<null>()({
    pattern: '/login',
    mode: 'dynamic',
    actions: { signIn: ['email', 'password'], pay: ['card'] },
    // @ts-expect-error: ...and only that action's fields ("card" is pay's, "pasword" no one's)
    secrets: { signIn: ['card', 'pasword'] },
  })
  layout()({
    id: 'root',
    mode: 'static',
    actions: { unlock: ['code', 'hint'] },
    // @ts-expect-error: a layout's secret fields are its actions' fields too
    secrets: { unlock: ['cod'] },
  })
  Form({
    route: signIn,
    action: 'signIn',
    children: (form) => {
      // A field that comes back has its last value (these lines compile).
      const email: string | undefined = form.field('email').defaultValue ?? form.value('email')
      // @ts-expect-error: a secret field's props carry no value
      void form.field('password').defaultValue
      // @ts-expect-error: and there is no last value to read
      void form.value('password')
      // A hidden input's name is checked like a field's (this line compiles)...
      void form.hidden('next', '/account')
      // @ts-expect-error: ...so a misspelled one does not
      void form.hidden('nxt', '/account')
      return [email, form.field('password').name]
    },
  })
  const refused: ActionState<ActionValueFields<typeof signIn, 'signIn'>> = { action: 'signIn', fieldErrors: {}, values: { email: '', next: '' } }
  // @ts-expect-error: a refused sign-in's values have no password
  void refused.values.password
  Form({
    route: routes.contact,
    action: 'send',
    children: () => null,
    // The question is asked with the action's own fields (this compiles)...
    confirm: ({ name, email }) => name !== email,
  })
  Form({
    route: routes.contact,
    action: 'send',
    children: () => null,
    // @ts-expect-error: ...so a field the action does not take is caught
    confirm: ({ subject }) => subject !== '',
  })
  SearchForm({
    route: routes.stats,
    children: (form) => {
      // A search form's fields are the route's declared query (these compile)...
      void form.field('tags')
      void form.option('tags', 3)
      // @ts-expect-error: ...so a misspelt name, which would silently drop the filter, is caught
      void form.field('tag')
      // @ts-expect-error: ...and a value of the wrong type: `tags` is a whole number
      void form.option('tags', 'three')
      return null
    },
  })
  // @ts-expect-error: the about page takes no query: its form has no field
  SearchForm({ route: routes.about, children: (form) => form.field('q') })
  // An action names what it changed by the tables' ids (these compile)...
  void actionSuccess({ changed: { routes: ['items', 'stats'], layouts: ['items'] } })
  // @ts-expect-error: ...so a misspelt layout is caught here, not reported at run time
  void actionSuccess({ changed: { layouts: ['itmes'] } })
  // @ts-expect-error: ...and so is a route id that is not in the table
  void actionSuccess({ changed: { routes: ['item'] } })
  defineServerLayout(layouts.items, {
    loader: () => ({ lists: [] }),
    actions: {
      // @ts-expect-error: a handler's answer is checked as well
      star: () => ({ ok: true, changed: { layouts: ['sidebar'] } }),
    },
  })
  // A layout reads the page on screen typed by its route: /items/7/stats has a tag count...
  const stats = usePageData(routes.stats)
  void stats?.tagCount
  // @ts-expect-error: ...and nothing while another page is on screen, so it may be undefined
  void stats.tagCount
  // @ts-expect-error: the item list's data has no tag count
  void usePageData(routes.items)?.tagCount
  // @ts-expect-error: /items/:id needs its id
  href('items')
  // @ts-expect-error: there is no route "nope"
  href('nope')
}

t.test('href still refuses at run time what the types refuse', async (t) => {
  t.throws(() => (href as (id: string) => string)('items'), /needs param "id"/)
  t.throws(() => (href as (id: string) => string)('nope'), /Unknown route "nope"/)
  t.equal(href('items', { id: '3' }), '/items/3')
})

t.test('href refuses a param that would be a path step of its own, and encodes the rest', async (t) => {
  for (const id of ['', '.', '..']) {
    t.throws(
      () => href('items', { id }),
      new RegExp(`param "id" cannot be ${JSON.stringify(id).replace(/\./g, '\\.')}: that URL would not reach the route`),
      JSON.stringify(id),
    )
  }
  t.equal(href('items', { id: '...' }), '/items/...', 'three dots are a name')
  t.equal(href('items', { id: 'a/b?c#d' }), '/items/a%2Fb%3Fc%23d')
})
