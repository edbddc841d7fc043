/** A charset other than UTF-8 is refused with 415, never decoded into replacement characters. */
export function foreignCharset(contentType: string | undefined): string | undefined {
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)/iu.exec(contentType ?? '')?.[1]
  // US-ASCII is a subset of UTF-8 (some clients name it for bodies of ASCII bytes).
  return charset !== undefined && !/^(utf-?8|us-ascii)$/iu.test(charset) ? charset : undefined
}
