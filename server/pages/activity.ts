import { routes } from '../../shared/routes.js'
import { defineServerPage } from '../framework/index.js'

export default defineServerPage(routes.activity, {
  loader: ({ guard }) => ({ signedInAt: new Date(guard.signedInAt).toISOString() }),
})
