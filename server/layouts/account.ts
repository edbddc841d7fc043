import { actionSuccess } from '../../shared/framework/index.js'
import { href, layouts } from '../../shared/routes.js'
import { SIGNED_IN_COOKIE } from '../../shared/signed-in.js'
import { defineServerLayout } from '../framework/index.js'
import { signedIn } from '../guards/signed-in.js'

/** The signed-in pages: guarded, the account's email for the layout, and signing out. */
export default defineServerLayout(layouts.account, {
  guard: signedIn,
  loader: ({ guard }) => ({ email: guard.email }),
  actions: {
    signOut: (_input, { session, response }) => {
      // With a session store the session is deleted on the server: a copy of the cookie is dead too.
      session.end()
      response.deleteCookie(SIGNED_IN_COOKIE)
      return actionSuccess(href('home'))
    },
  },
})
