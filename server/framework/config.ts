/**
 * Configuration from environment variables (docs/architecture.md, "Operations"), validated once at start: a
 * bad value throws a ConfigError naming the variable, and main.ts exits 1 with it.
 * Each variable is declared once, in config/variables.ts (name, meaning, default,
 * parser), and read through that list by config/load.ts; the rest of the server takes
 * the typed `AppConfig` (config/types.ts) from here.
 */
export {
  ConfigError,
  OPENER_POLICIES,
  type AppConfig,
  type LogLevel,
  type MonitoringConfig,
  type OpenerPolicy,
  type RateLimitConfig,
  type SessionConfig,
  type TrustProxy,
} from './config/types.js'
export { loadConfig, readVariables } from './config/load.js'
export { VARIABLES, defaultClientDir, defaultText, type Variable } from './config/variables.js'
