/** The browser entry of the application: its routes, pages and layouts, started. */
import './styles.css'
import { router } from '../shared/routes.js'
import { layouts } from './layouts/index.js'
import { pages } from './pages/index.js'
import { startClient } from './framework/browser/start.js'

void startClient({ router, pages, layouts })
