import { actionSuccess } from '../../shared/framework/index.js'
import { href, routes } from '../../shared/routes.js'
import { defineServerPage } from '../framework/index.js'

export default defineServerPage(routes.contact, {
  loader: ({ session }) => ({ thanks: session.takeFlash() ?? null }),
  actions: {
    // The table's schema checked the fields (trimmed, lengths, the address): a refusal never gets here.
    send: (input, { request, session }) => {
      const { name, email, message } = input

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
