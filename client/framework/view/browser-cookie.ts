/**
 * A cookie scripts may read (not `httpOnly`), by name, as the server stored it: decoded
 * the way the server's cookie serializer encoded it; the first of that name if there
 * are several (as the server's parser takes it). Browser only: call it in an effect or
 * in a render after the page is interactive, never in the server's render.
 */
export function browserCookie(name: string): string | undefined {
  const prefix = `${name}=`
  const raw = document.cookie
    .split('; ')
    .find((pair) => pair.startsWith(prefix))
    ?.slice(prefix.length)
  if (raw === undefined) return undefined
  try {
    return decodeURIComponent(raw)
  } catch {
    return raw
  }
}
