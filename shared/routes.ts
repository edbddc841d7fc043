/**
 * The application's routes (docs/architecture.md, "Routes" and "Example screens"): one table for both sides. The server side
 * of each route lives in server/pages/<id>.ts, the client side in client/pages/<id>.tsx,
 * and both are checked against the types declared here.
 */
import { createRouter, field, guarded, layout, MiB, route, searchParam } from './framework/index.js'
import { THEMES } from './theme.js'

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

/** What `/items/:id/stats` shows at once: computed with the page. */
export interface PriceSummary {
  readonly count: number
  readonly lowest: number
  readonly highest: number
  readonly mean: number
}

/** What it shows later: the slow statistics, a deferred part (DEMO_SLOW_MS). */
export interface SlowStatistics {
  readonly median: number
  readonly standardDeviation: number
  /** How many rows carry each tag, the most common first. */
  readonly tags: ReadonlyArray<{ readonly tag: string; readonly rows: number }>
}

export interface StatsData {
  readonly id: number
  readonly title: string
  /** How many of the most common tags the slow part lists (`?tags=`). */
  readonly tagCount: number
  readonly summary: PriceSummary
  /** Deferred: the page streams before it, and it follows in the same answer. */
  readonly slow: Promise<SlowStatistics>
}

export interface AboutData {
  readonly paragraph: string
}

export interface ContactData {
  /** The thanks for a message just sent: shown once, on the page after the form (a flash in the session). */
  readonly thanks: string | null
}

/** Limits of the contact form: the server enforces them, the inputs carry them as `maxlength`. */
export const CONTACT_LIMITS = { name: 80, email: 254, message: 2000 } as const

/** How many item lists the sidebar offers (ids 1 to this). */
export const LIST_COUNT = 10

export interface ItemsLayoutData {
  /** The item lists the sidebar offers, and which of them this visitor starred (kept in the session). */
  readonly lists: ReadonlyArray<{ readonly id: number; readonly title: string; readonly starred: boolean }>
}

/** A signed-in visitor, as the `signedIn` guard passes it to what it guards (kept in the session). */
export interface Account {
  readonly email: string
  /** When this session signed in (ms since the epoch). */
  readonly signedInAt: number
}

export interface LoginData {
  /** Where a sign-in goes on success: the `?next=` the guard gave, when it stays on this site. */
  readonly next: string
  /** The account this browser is signed in as already, if any. */
  readonly signedInAs: string | null
}

export interface AccountLayoutData {
  readonly email: string
}

export interface AccountData {
  readonly email: string
}

export interface ActivityData {
  /** When this session signed in, as an ISO 8601 date and time (UTC). */
  readonly signedInAt: string
}

/** Around every page: the site's header and footer, and the theme choice (its `theme` action). */
const rootLayout = layout()({
  id: 'root',
  mode: 'static',
  actions: {
    theme: { theme: field.oneOf(THEMES, { messages: { invalid: 'Choose light, dark or system.' } }) },
  },
})

export const layouts = {
  root: rootLayout,
  /**
   * Around the item pages: a sidebar of item lists with a filter box, the starred ones
   * marked (per visitor: dynamic), and `star` (the list `id`, `starred` yes or no).
   */
  items: layout<ItemsLayoutData>()({
    id: 'items',
    mode: 'dynamic',
    parent: rootLayout,
    actions: {
      star: {
        id: field.int({ min: 1, max: LIST_COUNT, messages: { invalid: 'There is no such list to star.' } }),
        starred: field.oneOf(['yes', 'no']),
      },
    },
  }),
  /** Around the signed-in pages: guarded (signed out: to /login), the account's email and the sign-out form. */
  account: layout<AccountLayoutData>()({
    id: 'account',
    mode: 'dynamic',
    parent: rootLayout,
    guard: guarded<Account>(),
    actions: { signOut: [] },
  }),
} as const

/** The contact form's optional attachment: an image or a PDF, up to 5 MiB. */
export const CONTACT_ATTACHMENT = { types: ['image/png', 'image/jpeg', 'application/pdf'], maxBytes: 5 * MiB } as const

/** An item list's id: digits only, and few enough to stay an exact JavaScript number. */
const LIST_ID = /^[0-9]{1,15}$/

export const routes = {
  // Shared caches (a CDN) may keep these two for five minutes: the same for every visitor.
  home: route<HomeData>()({ pattern: '/', mode: 'static', sharedCache: { maxAge: 300 } }),
  items: route<ItemsData>()({
    pattern: '/items/:id',
    mode: 'dynamic',
    params: { id: LIST_ID },
    layout: layouts.items,
  }),
  /** A list's price statistics: a summary at once, the slow part deferred; `?tags=3`: the three most common tags only. */
  stats: route<StatsData>()({
    pattern: '/items/:id/stats',
    mode: 'dynamic',
    params: { id: LIST_ID },
    search: { tags: searchParam.int({ default: 12, min: 1, max: 12 }) },
    layout: layouts.items,
  }),
  about: route<AboutData>()({ pattern: '/about', mode: 'static', sharedCache: { maxAge: 300 } }),
  contact: route<ContactData>()({
    pattern: '/contact',
    mode: 'dynamic',
    actions: {
      send: {
        name: field.text({
          maxLength: CONTACT_LIMITS.name,
          messages: { missing: 'Please enter your name.', invalid: `Your name can be at most ${CONTACT_LIMITS.name} characters.` },
        }),
        email: field.email({
          maxLength: CONTACT_LIMITS.email,
          messages: { missing: 'Please enter your email address.', invalid: 'Please enter a valid email address.' },
        }),
        message: field.text({
          maxLength: CONTACT_LIMITS.message,
          messages: { missing: 'Please enter a message.', invalid: `Your message can be at most ${CONTACT_LIMITS.message} characters.` },
        }),
      },
    },
    files: { send: { attachment: CONTACT_ATTACHMENT } },
  }),
  login: route<LoginData>()({
    pattern: '/login',
    mode: 'dynamic',
    actions: {
      signIn: {
        email: field.text({ maxLength: CONTACT_LIMITS.email }),
        // As typed: a password's spaces are part of it.
        password: field.text({ trim: false, maxLength: 1024 }),
        next: field.text({ optional: true }),
      },
    },
    // Never sent back with a refused sign-in: not in the page, not in its data, not in value=.
    secrets: { signIn: ['password'] },
  }),
  account: route<AccountData>()({ pattern: '/account', mode: 'dynamic', layout: layouts.account }),
  activity: route<ActivityData>()({ pattern: '/account/activity', mode: 'dynamic', layout: layouts.account }),
} as const

export type AppRoutes = typeof routes
export type AppLayouts = typeof layouts
export type RouteId = keyof AppRoutes

export const router = createRouter(routes, layouts)

// The ids an action names as `changed` are checked against these tables by the type checker.
declare module './framework/actions.js' {
  interface AppTables {
    readonly routes: AppRoutes
    readonly layouts: AppLayouts
  }
}
export const href = router.href
export const matchRoute = router.match
