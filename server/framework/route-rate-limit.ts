/** A route's rate-limit budget; here, outside plugins/, because no plugin imports another. */

/** Per client address; `timeWindow` in ms. */
export interface RouteRateLimit {
  readonly max: number
  readonly timeWindow: number
}
