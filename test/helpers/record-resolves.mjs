/**
 * Module hooks (node:module `register`) that tell the registering thread every module URL
 * resolved from then on: a test sees what the process loaded, ES modules included.
 */
let port

export function initialize(data) {
  port = data.port
}

export async function resolve(specifier, context, next) {
  const result = await next(specifier, context)
  port.postMessage(result.url)
  return result
}
