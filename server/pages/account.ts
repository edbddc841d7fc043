import { routes } from '../../shared/routes.js'
import { defineServerPage } from '../framework/index.js'

export default defineServerPage(routes.account, {
  loader: ({ guard }) => ({ email: guard.email }),
})
