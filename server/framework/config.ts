/**
 * Configuration from environment variables (docs/architecture.md, "Operations"), validated once at
 * start: a bad value throws a ConfigError naming the variable, and main.ts exits 1 with it.
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
export { VARIABLES, defaultClientDir, defaultText, defineVariable, type Variable } from './config/variables.js'
export { defineConfig, type ProductConfig, type ValuesOf } from './config/product.js'
