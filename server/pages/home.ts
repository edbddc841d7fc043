import { href, routes } from '../../shared/routes.js'
import { defineServerPage } from '../framework/index.js'

export default defineServerPage(routes.home, {
  loader: () => ({
    screens: [
      { href: href('items', { id: '1' }), label: 'Item list 1' },
      { href: href('items', { id: '7' }), label: 'Item list 7' },
      { href: href('about'), label: 'About' },
      { href: href('contact'), label: 'Contact' },
    ],
  }),
})
