import { actionSuccess } from '../../shared/framework/index.js'
import { layouts } from '../../shared/routes.js'
import { documentTheme, THEME_COOKIE, THEME_COOKIE_MAX_AGE_S } from '../../shared/theme.js'
import { SIGNED_IN_ATTRIBUTE, SIGNED_IN_COOKIE, saysSignedIn } from '../../shared/signed-in.js'
import { defineServerLayout } from '../framework/index.js'

/**
 * The root layout's server side: the theme choice, posted from any page (its form is in
 * the layout) and answered by going back to that page, now in the chosen colours; and
 * the chosen theme on `<html data-theme>` of every document, so the first paint has the
 * right colours (none for the system's: the stylesheet follows it then).
 */
export default defineServerLayout(layouts.root, {
  // A few values each (three themes, signed in or not): static pages are kept once per set.
  documentAttributes: ({ cookies }) => {
    const theme = documentTheme(cookies[THEME_COOKIE])
    const signedIn = saysSignedIn(cookies[SIGNED_IN_COOKIE])
    if (!theme && !signedIn) return undefined
    return { ...(theme ? { 'data-theme': theme } : {}), ...(signedIn ? { [SIGNED_IN_ATTRIBUTE]: '' } : {}) }
  },
  actions: {
    // A value the buttons never send was refused by the table's schema: no button shows it, so the form says it.
    theme: ({ theme }, { response }) => {
      // Readable by scripts: the theme choice shows what it holds (a preference, no
      // secret). "system" is stored too, not deleted: it replaces a cookie stored before
      // the cookie was readable, which the choice in the browser cannot see.
      response.setCookie(THEME_COOKIE, theme, { maxAge: THEME_COOKIE_MAX_AGE_S, httpOnly: false })
      // No page's data depends on it: nothing is loaded again.
      return actionSuccess({ changed: {} })
    },
  },
})
