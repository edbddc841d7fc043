import { type ActionFields, actionInvalid, actionSuccess } from '../../shared/framework/index.js'
import { CONTACT_LIMITS, href, routes } from '../../shared/routes.js'
import { defineServerPage } from '../framework/index.js'

/** The fields of the send action, as the route table declares them. */
type ContactField = ActionFields<typeof routes.contact, 'send'>

/** Deliberately plain: one @, something on each side, a dot in the domain, no spaces. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

export default defineServerPage(routes.contact, {
  loader: ({ session }) => ({ thanks: session.takeFlash() ?? null }),
  actions: {
    send: (input, { request, session }) => {
      const name = input.name.trim()
      const email = input.email.trim()
      const message = input.message.trim()
      const errors: { -readonly [F in ContactField]?: string } = {}
      if (!name) errors.name = 'Please enter your name.'
      else if (name.length > CONTACT_LIMITS.name) errors.name = `Your name can be at most ${CONTACT_LIMITS.name} characters.`
      if (!email) errors.email = 'Please enter your email address.'
      else if (email.length > CONTACT_LIMITS.email || !EMAIL.test(email)) errors.email = 'Please enter a valid email address.'
      if (!message) errors.message = 'Please enter a message.'
      else if (message.length > CONTACT_LIMITS.message) {
        errors.message = `Your message can be at most ${CONTACT_LIMITS.message} characters.`
      }
      if (Object.keys(errors).length > 0) return actionInvalid<ContactField>(errors)

      // The product's real sink is not decided yet: one structured log line per message.
      // The attachment's file is removed once this returns: what identifies it is logged.
      const attachment = input.attachment && { name: input.attachment.name, size: input.attachment.size, sha256: input.attachment.sha256 }
      request.log.info({ event: 'contact.message', contact: { name, email, message, attachment } }, 'contact message received')
      // Back to this page, which thanks the sender once (a reload does not thank again).
      session.flash(`Thank you, ${name}. Your message has been sent; we will get back to you soon.`)
      return actionSuccess(href('contact'))
    },
  },
})
