import { createContext } from 'react'
import type { ActionState } from '../../../shared/framework/actions.js'

/**
 * The state of a refused submission that the server rendered the page with (a form
 * posted without JavaScript, answered 422): the `<Form>` of that action shows it.
 */
export const ActionStateContext = createContext<ActionState | null>(null)
