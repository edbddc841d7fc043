/**
 * A route's rate-limit budget, as the routes that are counted name it in their
 * `config.rateLimit` (the actions and the monitoring tunnel) and plugins/rate-limit.ts
 * counts it. Here, outside plugins/, because no plugin imports another.
 */

/** A budget for one route: at most `max` requests per `timeWindow` ms per client address. */
export interface RouteRateLimit {
  readonly max: number
  readonly timeWindow: number
}
