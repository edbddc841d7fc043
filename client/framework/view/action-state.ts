import { createContext } from 'react'
import type { ActionState } from '../../../shared/framework/actions.js'

/** A submission's validation errors the server rendered the page with (a post without JavaScript, 422). */
export const ActionStateContext = createContext<ActionState | null>(null)
