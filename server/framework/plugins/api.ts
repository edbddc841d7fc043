/**
 * The /api prefix: JSON in, JSON out, JSON errors, unknown routes included. Route modules
 * (server/api/) are registered inside this context so they inherit all of it.
 */
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify'
import { declareRequestKind } from '../request-kinds.js'
import FindMyWay, { type HTTPMethod } from 'find-my-way'
import secureJsonParse from 'secure-json-parse'
import { originForm, splitTarget } from '../../../shared/framework/location.js'
import { AppError, errors } from '../error-registry.js'
import { sendMethodNotAllowed } from '../error-responses.js'
import { foreignCharset } from '../content-charset.js'
import { guardApiRequest } from '../guards.js'
import { endStepSpan, startStepSpan } from '../tracing/step-spans.js'
import { refuseServerOnly } from '../server-only.js'

const toArray = <T>(value: T | readonly T[] | undefined): T[] => (value === undefined ? [] : Array.isArray(value) ? [...value] : [value as T])

export interface ApiPluginOptions {
  readonly routes: readonly FastifyPluginAsync[]
}

export default async function apiPlugin(fastify: FastifyInstance, opts: ApiPluginOptions) {
  declareRequestKind(fastify, 'api')
  const routes = apiRouteMethods()
  fastify.addHook('onRoute', (route) => {
    routes.add(route.url, route.method)
    // First, before the body is read: none of the route's hooks runs for a request the guard stops.
    if (route.config?.guard) route.onRequest = [guardApiRequest, ...toArray(route.onRequest)]
    // With traces configured only: an untraced server's handlers stay as they were written.
    if (fastify.config.tracing && !isCatchAll(route.url)) route.handler = tracedHandler(route.url, route.handler)
  })
  // Unmatched /api paths would fall to the page routes (GET and POST /*); answered before any
  // body is read, so an unknown route is a 404 whatever its content type.
  async function sendApiNotFound(request: FastifyRequest, reply: FastifyReply) {
    const allowed = routes.methodsAt(request.url)
    if (allowed.length > 0) {
      const allow = allowed.join(', ')
      return sendMethodNotAllowed(request, reply, allow, errors.API_METHOD(request.method, allow))
    }
    return fastify.errorResponses.send(request, reply, errors.API_NOT_FOUND())
  }
  // JSON only: Fastify's text/plain parser would let a cross-site form or a fetch
  // without a preflight reach a route whose body has no object schema.
  fastify.removeContentTypeParser('text/plain')
  fastify.removeContentTypeParser('application/json')
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, parseJsonBody)
  // Fastify serializes an answer by its route's response schema, so it is checked before: the
  // whole value the handler returned, a field the schema would drop included.
  fastify.addHook('preSerialization', refuseServerOnlyAnswer)
  fastify.setNotFoundHandler(sendApiNotFound)
  fastify.all('/*', { onRequest: sendApiNotFound }, sendApiNotFound)
  fastify.all('/', { onRequest: sendApiNotFound }, sendApiNotFound)

  for (const plugin of opts.routes) await fastify.register(plugin)
}

/** A callback hook: it runs on every /api answer that is not a string already. */
function refuseServerOnlyAnswer(
  request: FastifyRequest,
  _reply: FastifyReply,
  payload: unknown,
  done: (error: Error | null, payload?: unknown) => void,
) {
  try {
    refuseServerOnly(payload, `The /api answer of ${request.method} ${request.routeOptions.url ?? request.url}`)
  } catch (error) {
    return done(error as Error)
  }
  done(null, payload)
}

/** The prefix's own catch-alls are no route of the API. */
function isCatchAll(url: string): boolean {
  return url === '/api/*' || url === '/api/' || url === '/api'
}

/** The handler's span: until its promise settles, or until it returns having sent the answer itself. */
function tracedHandler(url: string, handler: RouteHandlerMethod): RouteHandlerMethod {
  return function traced(this: FastifyInstance, request, reply) {
    const span = startStepSpan(request, `handler ${url}`, { 'app.step': 'handler', 'http.route': url })
    if (!span) return handler.call(this, request, reply)
    let result: unknown
    try {
      result = handler.call(this, request, reply)
    } catch (error) {
      endStepSpan(span, error)
      throw error
    }
    Promise.resolve(result).then(
      () => endStepSpan(span),
      (error: unknown) => endStepSpan(span, error),
    )
    return result
  }
}

/** Matched the way Fastify matches them (find-my-way). */
function apiRouteMethods() {
  const router = FindMyWay({ ignoreTrailingSlash: false })
  const methods = new Map<string, Set<string>>()
  const all = new Set<string>()
  return {
    add(url: string, method: string | readonly string[]) {
      if (isCatchAll(url)) return
      for (const one of typeof method === 'string' ? [method] : method) {
        all.add(one)
        let at = methods.get(url)
        if (!at) methods.set(url, (at = new Set()))
        if (!at.has(one)) router.on(one as HTTPMethod, url, () => {}, url)
        at.add(one)
      }
    },
    methodsAt(target: string): string[] {
      const path = splitTarget(originForm(target)).pathname
      return [...all].filter((method) => router.find(method as HTTPMethod, path) !== null).sort(byMethodOrder)
    },
  }
}

const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']
const byMethodOrder = (a: string, b: string) => (METHOD_ORDER.indexOf(a) >>> 0) - (METHOD_ORDER.indexOf(b) >>> 0) || a.localeCompare(b)

const utf8 = new TextDecoder('utf-8', { fatal: true })

/**
 * JSON is UTF-8: bytes that are not are a 400, never read with replacement characters.
 * Parsed as Fastify parses it, refusing `__proto__` and `constructor.prototype` keys.
 */
function parseJsonBody(request: FastifyRequest, body: Buffer, done: (error: Error | null, value?: unknown) => void) {
  if (foreignCharset(request.headers['content-type']) !== undefined) {
    return done(new AppError(errors.JSON_CHARSET()))
  }
  let text: string
  try {
    text = utf8.decode(body)
  } catch {
    return done(new AppError(errors.JSON_NOT_UTF8()))
  }
  if (text.length === 0) return done(new AppError(errors.EMPTY_JSON()))
  let value: unknown
  try {
    value = secureJsonParse(text, { protoAction: 'error', constructorAction: 'error' })
  } catch (error) {
    const poisoned = error instanceof SyntaxError && /forbidden (prototype|constructor) property/iu.test(error.message)
    return done(new AppError(poisoned ? errors.POISONED_JSON() : errors.BAD_JSON()))
  }
  done(null, value)
}
