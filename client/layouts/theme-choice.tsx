/**
 * The light / dark / system choice: a form posting the root layout's `theme` action.
 * Without JavaScript the server stores the cookie and answers with the page again, in
 * the chosen colours. With JavaScript the colours change at once (on `<html
 * data-theme>`, the attribute the server writes) and the same post, sent by fetch,
 * stores the choice; if it cannot be stored, the colours go back.
 *
 * A plain form rather than `<Form>`: the choice has no fields to fill in (only a value
 * the buttons never send can be refused, shown as one message) and no page data to
 * reload, and the root layout is in every page's first load, where every kilobyte
 * counts.
 *
 * The server's HTML cannot say which button is pressed on a static page (that page is
 * shared by everyone), so the stylesheet marks the current one from `<html data-theme>`,
 * and `aria-pressed` is set once the page is interactive.
 */
import { useContext, useEffect, useRef, useState, type FormEvent } from 'react'
import { ACTION_FIELD, type ActionFields, type ActionName } from '../../shared/framework/index.js'
import { ActionStateContext } from '../framework/index.js'
import type { layouts } from '../../shared/routes.js'
import { documentTheme, isTheme, THEMES, type Theme } from '../../shared/theme.js'

/** The action and its field, checked against the layout table. */
const ACTION: ActionName<typeof layouts.root> = 'theme'
const FIELD: ActionFields<typeof layouts.root, typeof ACTION> = 'theme'

const LABELS: Record<Theme, string> = { light: 'Light', dark: 'Dark', system: 'System' }

function applyTheme(theme: Theme): void {
  const value = documentTheme(theme)
  if (value) document.documentElement.dataset.theme = value
  else delete document.documentElement.dataset.theme
}

export function ThemeChoice() {
  // Known only in the browser (see above): none is pressed until then.
  const [current, setCurrent] = useState<Theme>()
  /** Counts choices: only the latest one's failure puts the colours back. */
  const latest = useRef(0)
  // A value the buttons never send (a crafted post, without JavaScript) comes back as
  // the page with the action's refusal: say why nothing changed.
  // Derived from the page's state, not copied: it goes with the page it came with.
  const refused = useContext(ActionStateContext)
  /** The refusal a later choice of ours answered. */
  const [dismissed, setDismissed] = useState<typeof refused>(null)
  const refusal = refused?.action === ACTION && refused !== dismissed ? (refused.fieldErrors[FIELD] ?? refused.formError) : undefined
  useEffect(() => setCurrent(documentTheme(document.documentElement.dataset.theme) ?? 'system'), [])

  async function choose(event: FormEvent<HTMLFormElement>) {
    const submitter = (event.nativeEvent as SubmitEvent).submitter
    const theme = submitter instanceof HTMLButtonElement ? submitter.value : undefined
    if (!isTheme(theme)) return // not one of ours: let the browser post it
    event.preventDefault()
    setDismissed(refused) // a choice of ours: the refusal of another value no longer applies
    const before = current
    const choice = ++latest.current
    applyTheme(theme)
    setCurrent(theme)
    try {
      const response = await fetch(window.location.pathname + window.location.search, {
        method: 'POST',
        headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded;charset=UTF-8' },
        body: new URLSearchParams({ [ACTION_FIELD]: ACTION, [FIELD]: theme }),
        credentials: 'same-origin',
      })
      if (!response.ok) throw new Error(`the theme was not stored (${response.status})`)
    } catch (error) {
      if (before && choice === latest.current) {
        applyTheme(before)
        setCurrent(before)
      }
      console.warn(error)
    }
  }

  return (
    <form method="post" className="theme-choice" aria-label="Colour theme" onSubmit={choose}>
      <input type="hidden" name={ACTION_FIELD} value={ACTION} />
      <span aria-hidden="true">Theme:</span>
      {THEMES.map((theme) => (
        <button key={theme} type="submit" name={FIELD} value={theme} aria-pressed={current === undefined ? undefined : current === theme}>
          {LABELS[theme]}
        </button>
      ))}
      {refusal && (
        <span role="alert" className="form-error">
          {refusal}
        </span>
      )}
    </form>
  )
}
