/**
 * The product's own environment variables, read and checked at start with the framework's
 * (a bad value stops the start, naming it) and listed in README.md's table after them.
 * Read them typed with `config.of(request)`.
 */
import { ConfigError, defineConfig, defineVariable, hashPasswordSync, markServerOnly, type PasswordHash } from './framework/index.js'

export interface ConfiguredAccount {
  readonly email: string
  readonly password: PasswordHash
}

const MIN_PASSWORD_LENGTH = 8

/** Its hash is server-only already (the framework's passwords helper); the record is too, so it is named whole. */
export const ACCOUNT_MESSAGE = 'a demo account holds its password hash: return its email, not the account'

/**
 * Each account is split at its first colon: a password may hold colons, not commas. A
 * message names an account by its place and email, never by its text, which holds a password.
 */
export function parseAccounts(raw: string, name: string): readonly ConfiguredAccount[] {
  const entries = raw.split(',')
  const accounts: ConfiguredAccount[] = []
  for (const [index, entry] of entries.entries()) {
    const place = entries.length > 1 ? `account ${index + 1} of ${entries.length}` : 'the account'
    const colon = entry.indexOf(':')
    const email = colon === -1 ? '' : entry.slice(0, colon).trim().toLowerCase()
    const password = colon === -1 ? '' : entry.slice(colon + 1)
    if (!/^[^\s@:]+@[^\s@:]+$/.test(email) || password === '') {
      throw new ConfigError(
        name,
        `must be one or more email:password pairs separated by commas, such as \`me@example.com:a long passphrase\`; ${place} is not one`,
      )
    }
    if (password.length < MIN_PASSWORD_LENGTH) {
      throw new ConfigError(name, `needs passwords of at least ${MIN_PASSWORD_LENGTH} characters; ${place} (${email}) has ${password.length}`)
    }
    if (accounts.some((account) => account.email === email)) throw new ConfigError(name, `names ${email} twice`)
    accounts.push(markServerOnly({ email, password: hashPasswordSync(password) }, ACCOUNT_MESSAGE))
  }
  return accounts
}

export const config = defineConfig([
  defineVariable({
    name: 'DEMO_ACCOUNT',
    meaning:
      "the demo's accounts, one or more `email:password` pairs separated by commas (each password hashed with scrypt at start, " +
      'none holding a comma). Unset, `demo@example.com` / `demo-password` ' +
      'signs in only where nothing but this machine reaches the server (HOST a loopback address, TRUST_PROXY off, ' +
      'ALLOWED_HOSTS unset); anywhere else, behind a proxy on the same machine included, no account exists until this is set',
    default: { text: 'none', value: (): readonly ConfiguredAccount[] | undefined => undefined },
    parse: parseAccounts,
  }),
])
