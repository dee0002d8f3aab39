/**
 * Where a request to a provider goes: the base URL parsed once, a path checked so
 * that it can never climb out of the base URL's path or origin (dot segments,
 * backslashes, broken percent-encoding, control characters), and the request
 * target joined from both. Shared by the proxy and the active health checks, and
 * used by the provider rules to refuse a check path that could not be sent.
 */

/** Thrown for a path that could leave the provider's base URL. */
export class UnsafePathError extends Error {}

/** A request target in origin form: an absolute-form target (`http://host/a?b`) less its scheme and authority. */
export function originForm (target: string): string {
  return target.replace(/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?#]*/, '')
}

/** Characters without which a path can hold no dot segment, backslash or percent-encoding. */
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const UNSAFE_CANDIDATE = /[%.\\\x00-\x20\x7f]/

/** Spaces and control characters, which no request line carries raw. */
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const CONTROL = /[\x00-\x20\x7f]/

/**
 * Refuses a path (and query) that could climb out of a base URL's path: dot
 * segments, raw or percent-encoded, backslashes, and broken percent-encoding.
 */
export function assertSafePath (path: string): void {
  const queryAt = path.indexOf('?')
  const pathname = queryAt === -1 ? path : path.slice(0, queryAt)
  // Without '%', '.', '\\' or a control character there is nothing to decode and no dot segment: safe as it is.
  if (!UNSAFE_CANDIDATE.test(pathname)) return
  // A URL parser drops tabs and line breaks, which could join '.' and '.' into '..'.
  if (CONTROL.test(pathname)) throw new UnsafePathError('Path may not contain spaces or control characters')
  for (const segment of pathname.split('/')) {
    let decoded: string
    try {
      decoded = decodeURIComponent(segment)
    } catch {
      throw new UnsafePathError('Path is not valid percent-encoding')
    }
    if (decoded.includes('\\') || decoded.split('/').some((part) => part === '.' || part === '..')) {
      throw new UnsafePathError('Path may not contain dot segments or backslashes')
    }
  }
}

/** A provider's base URL, parsed once: where a request to it goes (see upstreamTarget). */
export interface UpstreamBase {
  /** `scheme://host[:port]`, no userinfo. */
  readonly origin: string
  /** The base URL's path without its trailing slash ('' for the root). */
  readonly pathname: string
  /** The base URL's query without its `?` ('' when it has none). */
  readonly query: string
}

/** Parses a base URL for upstreamTarget (its fragment is never sent). */
export function parseBase (baseUrl: string): UpstreamBase {
  const base = new URL(baseUrl)
  return { origin: base.origin, pathname: base.pathname.replace(/\/$/, ''), query: base.search.slice(1) }
}

/**
 * Characters the URL parser leaves as they are in a path and in a query, so a target
 * of only these is sent exactly as the parser would send it; anything else (`"`, `'`,
 * `<`, `>`, `` ` ``, `{`, `}`, bytes outside printable ASCII) goes through the parser
 * and is percent-encoded as it always was.
 */
const PLAIN_TARGET = /^[!$%&()*+,\-./0-9:;=?@A-Z[\\\]^_a-z|~]*$/

/**
 * Where a safe `path` (see assertSafePath) goes under `base`: its origin, and the
 * request target on it (the base's path, then the client's; the base's query
 * parameters first, then the client's). The target always starts with `/`, so
 * `//evil.example/x` stays a path on the provider's origin.
 */
export function upstreamTarget (base: UpstreamBase, path: string): { origin: string, path: string } {
  const queryAt = path.indexOf('?')
  const pathname = queryAt === -1 ? path : path.slice(0, queryAt)
  const clientQuery = queryAt === -1 ? '' : path.slice(queryAt + 1)
  const query = base.query === '' ? clientQuery : clientQuery === '' ? base.query : `${base.query}&${clientQuery}`
  let target = `${base.pathname}${pathname.startsWith('/') ? pathname : `/${pathname}`}${query === '' ? '' : `?${query}`}`
  if (!PLAIN_TARGET.test(target)) {
    // Rare: bytes a request line may not carry raw; the URL parser encodes them.
    const parsed = new URL(`${base.origin}${target}`)
    if (parsed.origin !== base.origin) throw new UnsafePathError('Path would leave the provider\'s origin')
    target = `${parsed.pathname}${parsed.search}`
  }
  return { origin: base.origin, path: target }
}

/**
 * The upstream URL for a safe `path` under `baseUrl` (upstreamTarget as one URL);
 * it always keeps the base URL's origin and never carries its userinfo.
 */
export function upstreamUrl (baseUrl: string, path: string): URL {
  const { origin, path: target } = upstreamTarget(parseBase(baseUrl), path)
  const url = new URL(`${origin}${target}`)
  if (url.origin !== origin) throw new UnsafePathError('Path would leave the provider\'s origin')
  return url
}

/**
 * `Authorization: Basic …` for the `user:password@` of a base URL stored before
 * userinfo was refused, or undefined when it has none.
 */
export function baseUrlAuthorization (baseUrl: string): string | undefined {
  const base = new URL(baseUrl)
  if (base.username === '' && base.password === '') return undefined
  const credentials = `${safeDecode(base.username)}:${safeDecode(base.password)}`
  return `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}`
}

/**
 * The provider's credentials for a request: `Authorization: Basic` from a base URL
 * stored with userinfo (before that was refused), unless its `auth_headers` set
 * `authorization`; then its `auth_headers`.
 */
export function providerCredentials (baseUrl: string, authHeaders: string | null): Record<string, string> | undefined {
  const headers = authHeaders === null ? {} : JSON.parse(authHeaders) as Record<string, string>
  const basic = baseUrlAuthorization(baseUrl)
  if (basic === undefined) return authHeaders === null ? undefined : headers
  return Object.keys(headers).some((name) => name.toLowerCase() === 'authorization') ? headers : { authorization: basic, ...headers }
}

function safeDecode (text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}
