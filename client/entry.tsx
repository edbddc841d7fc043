/** The browser entry of the application: its stylesheet, and the product started. */
import './styles.css'
import { clientApp } from './application.js'
import { startClient } from './framework/start.js'

void startClient(clientApp)
