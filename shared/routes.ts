/**
 * The application's routes (docs/architecture.md, "Routes" and "Example screens"): one table for both sides. The server side
 * of each route lives in server/pages/<id>.ts, the client side in client/pages/<id>.tsx,
 * and both are checked against the types declared here.
 */
import { createRouter, layout, MiB, route } from './framework/index.js'

export interface HomeData {
  readonly screens: ReadonlyArray<{ readonly href: string; readonly label: string }>
}

export interface ItemRow {
  readonly n: number
  readonly name: string
  readonly price: number
  readonly tags: readonly string[]
}

export interface ItemsData {
  readonly id: number
  readonly title: string
  readonly rows: readonly ItemRow[]
}

export interface AboutData {
  readonly paragraph: string
}

export interface ContactData {
  /** The thanks for a message just sent: shown once, on the page after the form (a flash in the session). */
  readonly thanks: string | null
}

/** Limits of the contact form, shared so the browser can hint what the server enforces. */
export const CONTACT_LIMITS = { name: 80, email: 254, message: 2000 } as const

export interface ItemsLayoutData {
  /** The item lists the sidebar offers. */
  readonly lists: ReadonlyArray<{ readonly id: number; readonly title: string }>
}

/** Around every page: the site's header and footer, and the theme choice (its `theme` action). */
const rootLayout = layout()({ id: 'root', mode: 'static', actions: { theme: ['theme'] } })

export const layouts = {
  root: rootLayout,
  /** Around the item pages: a sidebar of item lists with a filter box. */
  items: layout<ItemsLayoutData>()({ id: 'items', mode: 'static', parent: rootLayout }),
} as const

/** The contact form's optional attachment: an image or a PDF, up to 5 MiB. */
export const CONTACT_ATTACHMENT = { types: ['image/png', 'image/jpeg', 'application/pdf'], maxBytes: 5 * MiB } as const

export const routes = {
  home: route<HomeData>()({ pattern: '/', mode: 'static' }),
  items: route<ItemsData>()({
    pattern: '/items/:id',
    mode: 'dynamic',
    // Digits only, and few enough to stay an exact JavaScript number.
    params: { id: /^[0-9]{1,15}$/ },
    layout: layouts.items,
  }),
  about: route<AboutData>()({ pattern: '/about', mode: 'static' }),
  contact: route<ContactData>()({
    pattern: '/contact',
    mode: 'dynamic',
    actions: { send: ['name', 'email', 'message'] },
    files: { send: { attachment: CONTACT_ATTACHMENT } },
  }),
} as const

export type AppRoutes = typeof routes
export type AppLayouts = typeof layouts
export type RouteId = keyof AppRoutes

export const router = createRouter(routes, layouts)
export const href = router.href
export const matchRoute = router.match
