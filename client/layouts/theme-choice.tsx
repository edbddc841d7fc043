/**
 * The light / dark / system choice: a form posting the root layout's `theme` action.
 * Without JavaScript the server stores the cookie and answers with the page again, in
 * the chosen colours. With JavaScript the colours change at once (on `<html
 * data-theme>`, the attribute the server writes) while the same post stores the choice.
 *
 * The server's HTML cannot say which button is pressed on a static page (that page is
 * shared by everyone), so the stylesheet marks the current one from `<html data-theme>`,
 * and `aria-pressed` is set once the page is interactive.
 */
import { useSyncExternalStore, type FormEvent } from 'react'
import { layouts } from '../../shared/routes.js'
import { documentTheme, isTheme, THEMES, type Theme } from '../../shared/theme.js'
import { Form } from '../app/form.js'

const LABELS: Record<Theme, string> = { light: 'Light', dark: 'Dark', system: 'System' }

const listeners = new Set<() => void>()

function subscribe(onChange: () => void): () => void {
  listeners.add(onChange)
  return () => listeners.delete(onChange)
}

function currentTheme(): Theme {
  return documentTheme(document.documentElement.dataset.theme) ?? 'system'
}

function applyTheme(theme: Theme): void {
  const value = documentTheme(theme)
  if (value) document.documentElement.dataset.theme = value
  else delete document.documentElement.dataset.theme
  for (const listener of listeners) listener()
}

/** Before the form is sent: the colours the visitor asked for, now. */
function applyChosenTheme(event: FormEvent<HTMLFormElement>) {
  const submitter = (event.nativeEvent as SubmitEvent).submitter
  const value = submitter instanceof HTMLButtonElement ? submitter.value : undefined
  if (isTheme(value)) applyTheme(value)
}

export function ThemeChoice() {
  const current = useSyncExternalStore(subscribe, currentTheme, () => undefined)
  return (
    <Form route={layouts.root} action="theme" className="theme-choice" aria-label="Colour theme" onSubmitCapture={applyChosenTheme}>
      {(form) => (
        <>
          <span aria-hidden="true">Theme:</span>
          {THEMES.map((theme) => (
            <button
              key={theme}
              type="submit"
              name={form.field('theme').name}
              value={theme}
              aria-pressed={current === undefined ? undefined : current === theme}
            >
              {LABELS[theme]}
            </button>
          ))}
          {form.error('theme')}
        </>
      )}
    </Form>
  )
}
