/**
 * Recognising and masking secrets wherever they could be shown or written: field
 * and query-parameter names that hold credentials, and URLs that carry them
 * (userinfo, `?api_key=…`), whether or not the URL parses. Used by the audit
 * trail, the 422 `input` echo, the request logs and the provider records shown to
 * callers below `admin`.
 */

/** Names (of fields, headers or query parameters) whose values are secrets. */
export const SECRET_NAME = /pass(word)?|secret|token|key|auth|signature|sig$|credential|session/i

/** The mask written in place of a secret. */
export const MASK = '***'

/**
 * `value` with its password (or a user name standing alone, which is often a
 * token) and secret-looking query values (or, with `everyQueryValue`, every query
 * value) masked, the parameters kept in their order; a URL without secrets, or
 * text that is not a URL, comes back exactly as it was. A URL the parser refuses
 * (`https://user:pw@host:99999/`) is masked as text, by the same rules.
 */
export function maskUrl (value: string, { everyQueryValue = false } = {}): string {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return maskQueryText(maskUserinfoText(value), everyQueryValue)
  }
  let masked = false
  if (url.password !== '') {
    url.password = MASK
    masked = true
  } else if (url.username !== '') {
    url.username = MASK
    masked = true
  }
  if (url.search.length > 1) {
    const query = maskPairs(url.search.slice(1), everyQueryValue)
    if (query !== undefined) {
      url.search = `?${query}`
      masked = true
    }
  }
  return masked ? url.toString() : value
}

/** A query (`a=1&api_key=k`) with its secret-looking values (or every value) masked; undefined when nothing was. */
function maskPairs (query: string, everyQueryValue: boolean): string | undefined {
  let masked = false
  const pairs = query.split('&').map((pair) => {
    if (pair === '') return pair
    const equals = pair.indexOf('=')
    // A parameter without a value shows its name only; when every value is hidden, not even that.
    if (equals === -1 && !everyQueryValue) return pair
    const name = equals === -1 ? pair : pair.slice(0, equals)
    if (!everyQueryValue && !SECRET_NAME.test(decodeName(name))) return pair
    masked = true
    return equals === -1 ? MASK : `${name}=${MASK}`
  })
  return masked ? pairs.join('&') : undefined
}

/**
 * The start of a URL written as text, read as loosely as the URL parser reads it:
 * any scheme (or none, `//host`), any slashes, then the authority's userinfo, up to
 * its last `@` (a password may hold one).
 */
const USERINFO = /^(\s*(?:[a-z][a-z0-9+.-]*:[/\\]*|[/\\]{2}))([^/?#\\]*)@/i

/** `text` with the credentials before a URL's `@` masked as maskUrl masks them: the password, or a user name alone. */
function maskUserinfoText (text: string): string {
  const match = USERINFO.exec(text)
  if (match === null) return text
  const [whole, start, userinfo] = match as unknown as [string, string, string]
  const colon = userinfo.indexOf(':')
  return `${start}${colon === -1 ? MASK : `${userinfo.slice(0, colon)}:${MASK}`}@${text.slice(whole.length)}`
}

/** `text` with the secret-looking values (or every value) of the query after its first `?` masked, as written. */
function maskQueryText (text: string, everyQueryValue = false): string {
  const start = text.indexOf('?')
  if (start === -1) return text
  const hash = text.indexOf('#', start)
  const end = hash === -1 ? text.length : hash
  const query = maskPairs(text.slice(start + 1, end), everyQueryValue)
  return query === undefined ? text : `${text.slice(0, start + 1)}${query}${text.slice(end)}`
}

/** A query parameter name as text (`api%5Fkey` is `api_key`); as sent when it is not valid encoding. */
function decodeName (name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '))
  } catch {
    return name
  }
}

/**
 * A request target (`/path?query`) with secret-looking query values (or, with
 * `everyQueryValue`, every query value) masked, for logs, the audit trail and
 * health check paths shown below `admin`.
 */
export function maskRequestTarget (target: string, { everyQueryValue = false } = {}): string {
  const queryAt = target.indexOf('?')
  if (queryAt === -1) return target
  const url = `http://x${target.startsWith('/') ? '' : '/'}${target}`
  // maskUrl answers its input itself when there was nothing to mask.
  const masked = maskUrl(url, { everyQueryValue })
  return masked === url ? target : `${target.slice(0, queryAt)}${new URL(masked).search}`
}

/** A text that starts as a URL does: a scheme (leading whitespace allowed, as the URL parser allows it). */
const SCHEME = /^\s*[a-z][a-z0-9+.-]*:/i

/**
 * Any text as it may be shown or written (the audit trail's values, a 422's
 * `input`): credentials in a URL of any scheme (or `//host`) masked, parsed or
 * not (maskUrl), and in anything else that holds a `?` (a path, or a path refused
 * for not starting with `/`: `h?token=…`) the secret-looking query values. Text
 * without them comes back as it was.
 */
export function maskText (text: string): string {
  if (SCHEME.test(text)) return maskUrl(text)
  const shown = maskUserinfoText(text)
  return shown.startsWith('/') ? maskRequestTarget(shown) : maskQueryText(shown)
}
