/**
 * Named bearer tokens with one scope each, parsed from `name:scope:secret`
 * entries. Secrets are kept only as SHA-256 digests and compared in constant
 * time against every token, so neither timing nor logs reveal them.
 */
import { hash } from 'node:crypto'
import { isPlaceholderSecret, PLACEHOLDER_HINT } from './placeholder-secrets.js'

export const SCOPES = ['read', 'client', 'admin'] as const
export type Scope = typeof SCOPES[number]

/** What each scope may do, by rank: admin ⊃ client ⊃ read. */
export const SCOPE_RANK: Record<Scope, number> = { read: 1, client: 2, admin: 3 }

export interface Token {
  readonly name: string
  readonly scope: Scope
  /** SHA-256 of the secret, in base64. */
  readonly digest: string
}

/** Shortest accepted secret: long enough that guessing is hopeless. */
export const MIN_SECRET_LENGTH = 16

// One-shot hashing to a string: no Hash object and no Buffer (an off-heap allocation the
// garbage collector must track) per request.
const digest = (secret: string): string => hash('sha256', secret, 'base64')

/** Compares two digests of equal length without stopping at the first difference. */
function sameDigest (a: string, b: string): boolean {
  let difference = a.length ^ b.length
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i)
  return difference === 0
}

/**
 * Parses `name:scope:secret` entries separated by commas or newlines (blank lines
 * and `#` comments are skipped). Throws an Error whose message never contains a secret.
 */
export function parseTokens (text: string): Token[] {
  const tokens: Token[] = []
  const entries = text.split(/[\n,]/).map((e) => e.trim()).filter((e) => e !== '' && !e.startsWith('#'))
  for (const [index, entry] of entries.entries()) {
    const [name = '', scope = '', ...rest] = entry.split(':')
    const secret = rest.join(':')
    const where = `entry ${index + 1}${/^[\w.-]{1,64}$/.test(name) ? ` ('${name}')` : ''}`
    if (!/^[\w.-]{1,64}$/.test(name)) throw new Error(`${where}: the name must be 1-64 letters, digits, '_', '.' or '-'`)
    if (!(SCOPES as readonly string[]).includes(scope)) throw new Error(`${where}: the scope must be one of ${SCOPES.join(', ')}`)
    if (isPlaceholderSecret(secret)) throw new Error(`${where}: the secret is a placeholder (${PLACEHOLDER_HINT}); put a random one in its place, e.g. openssl rand -hex 24`)
    if (secret.length < MIN_SECRET_LENGTH) throw new Error(`${where}: the secret must be at least ${MIN_SECRET_LENGTH} characters`)
    if (tokens.some((t) => t.name === name)) throw new Error(`${where}: the name is used twice`)
    const secretDigest = digest(secret)
    // One secret, two names: the audit trail could not tell who acted, and the scope would be a guess.
    const twin = tokens.findIndex((t) => t.digest === secretDigest)
    if (twin !== -1) throw new Error(`${where}: the secret is also entry ${twin + 1}'s; every token needs its own`)
    tokens.push({ name, scope: scope as Scope, digest: secretDigest })
  }
  return tokens
}

/** The token whose secret is `presented`, or undefined; checks every token in constant time. */
export function findToken (tokens: readonly Token[], presented: string): Token | undefined {
  const presentedDigest = digest(presented)
  let found: Token | undefined
  for (const token of tokens) {
    if (sameDigest(token.digest, presentedDigest)) found = token
  }
  return found
}
