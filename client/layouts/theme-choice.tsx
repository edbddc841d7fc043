/**
 * The light / dark / system choice: the root layout's `theme` action, sent with
 * `useAction`. Without JavaScript the server stores the cookie and answers with the page
 * again, in the chosen colours. With JavaScript the colours change at once (on `<html
 * data-theme>`, the attribute the server writes) while the same post stores the choice.
 *
 * What is shown is derived, never copied: the choice being sent while it is pending,
 * otherwise the cookie the server keeps it in (readable by scripts for this; a colour
 * preference is no secret), or, before any choice, the theme the server wrote on the
 * page (a cookie stored before it was readable counts there too). So a choice the server
 * refused or never got goes back by itself, as the cookie did not change; and the action
 * names nothing changed, so no page data is loaded again.
 *
 * The server's HTML cannot say which button is pressed on a static page (that page is
 * shared by everyone), so the stylesheet marks the current one from `<html data-theme>`,
 * and `aria-pressed` is set once the page is interactive.
 */
import { useEffect, useState } from 'react'
import type { ActionFields } from '../../shared/framework/index.js'
import { browserCookie, useAction } from '../framework/index.js'
import { layouts } from '../../shared/routes.js'
import { documentTheme, isTheme, THEME_COOKIE, THEMES, type Theme } from '../../shared/theme.js'

/** The buttons' field, checked against the layout table. */
const FIELD: ActionFields<typeof layouts.root, 'theme'> = 'theme'

const LABELS: Record<Theme, string> = { light: 'Light', dark: 'Dark', system: 'System' }

/** The theme the server keeps for this browser, once a choice was stored: its cookie. */
function storedTheme(): Theme | undefined {
  const stored = browserCookie(THEME_COOKIE)
  return isTheme(stored) ? stored : undefined
}

function applyTheme(theme: Theme): void {
  const value = documentTheme(theme)
  if (value) document.documentElement.dataset.theme = value
  else delete document.documentElement.dataset.theme
}

export function ThemeChoice() {
  const choice = useAction(layouts.root, 'theme')
  // Known only in the browser (see above): none is pressed until then.
  const [served, setServed] = useState<Theme>()
  useEffect(() => setServed(documentTheme(document.documentElement.dataset.theme) ?? 'system'), [])
  const sending = choice.values?.theme
  const current = served && (isTheme(sending) ? sending : (storedTheme() ?? served))
  useEffect(() => {
    if (current) applyTheme(current)
  }, [current])

  return (
    <choice.Form className="theme-choice" aria-label="Colour theme" aria-busy={choice.pending}>
      {() => (
        <>
          <span aria-hidden="true">Theme:</span>
          {THEMES.map((theme) => (
            <button key={theme} type="submit" name={FIELD} value={theme} aria-pressed={current && current === theme}>
              {LABELS[theme]}
            </button>
          ))}
        </>
      )}
    </choice.Form>
  )
}
