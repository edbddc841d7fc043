/** Browser only: never call it in the server's render. The first of a name wins, as the server's parser takes it. */
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
