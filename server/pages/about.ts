import { routes } from '../../shared/routes.js'
import { defineServerPage } from '../framework/index.js'

export default defineServerPage(routes.about, {
  loader: () => ({
    paragraph:
      'This application renders React on the server with Fastify, sends the whole page in one answer (or streams it, for pages that ask to), hydrates it in the browser and routes between pages client-side with wouter.',
  }),
})
