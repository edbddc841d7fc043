/** The production server: the product, run by the framework's process (listen, drain, stop). */
import { application } from './application.js'
import { runServer } from './framework/index.js'

await runServer(application)
