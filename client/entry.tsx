/** The browser entry of the application: its routes and pages, started. */
import './styles.css'
import { router } from '../shared/routes.js'
import { pages } from './pages/index.js'
import { startClient } from './browser/start.js'
import { RootLayout } from './layouts/root.js'

void startClient({ router, pages, layout: RootLayout })
