import { actionInvalid, actionSuccess, returnPath } from '../../shared/framework/index.js'
import { href, routes } from '../../shared/routes.js'
import { SIGNED_IN_COOKIE } from '../../shared/signed-in.js'
import { checkCredentials } from '../accounts.js'
import { defineServerPage } from '../framework/index.js'
import { ACCOUNT_KEY, isAccount } from '../guards/signed-in.js'

/** One message whichever of the two was wrong: it does not tell a guesser which emails exist. */
export const WRONG_CREDENTIALS = 'That email and password do not match an account.'

export default defineServerPage(routes.login, {
  loader: ({ searchParams, session }) => {
    const account = session.get(ACCOUNT_KEY)
    return {
      next: returnPath(searchParams.get('next'), href('account')),
      signedInAs: isAccount(account) ? account.email : null,
    }
  },
  actions: {
    signIn: async ({ email, password, next }, { request, session, response }) => {
      const account = await checkCredentials(request, email, password)
      if (!account) {
        request.log.info({ event: 'account.sign-in-refused' }, 'sign-in refused')
        return actionInvalid({}, WRONG_CREDENTIALS)
      }
      // A new session identity for the signed-in visitor: one planted before (fixation) is not it.
      session.regenerate()
      session.set(ACCOUNT_KEY, { email: account, signedInAt: Date.now() })
      // As long as the session can last at most; the guard deletes it sooner when it finds no session.
      response.setCookie(SIGNED_IN_COOKIE, '1', { httpOnly: false, maxAge: request.server.config.sessions.absoluteTimeoutS })
      request.log.info({ event: 'account.signed-in' }, 'signed in')
      return actionSuccess(returnPath(next ?? null, href('account')))
    },
  },
})
