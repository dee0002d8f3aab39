/**
 * Recognising and masking secrets wherever they could be shown or written: field
 * and query-parameter names that hold credentials, and URLs that carry them
 * (userinfo, `?api_key=…`). Used by the audit trail, the request logs and the
 * provider records shown to callers below `admin`.
 */

/** Names (of fields, headers or query parameters) whose values are secrets. */
export const SECRET_NAME = /pass(word)?|secret|token|key|auth|signature|sig$|credential|session/i

/** The mask written in place of a secret. */
export const MASK = '***'

/**
 * `value` with its password (or a user name standing alone, which is often a
 * token) and secret-looking query values (or, with `everyQueryValue`, every query
 * value) masked, the parameters kept in their order; a URL without secrets, or
 * text that is not a URL, comes back exactly as it was.
 */
export function maskUrl (value: string, { everyQueryValue = false } = {}): string {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return value
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
    const pairs = url.search.slice(1).split('&').map((pair) => {
      if (pair === '') return pair
      const equals = pair.indexOf('=')
      // A parameter without a value shows its name only; when every value is hidden, not even that.
      if (equals === -1 && !everyQueryValue) return pair
      const name = equals === -1 ? pair : pair.slice(0, equals)
      if (!everyQueryValue && !SECRET_NAME.test(decodeName(name))) return pair
      masked = true
      return equals === -1 ? MASK : `${name}=${MASK}`
    })
    url.search = `?${pairs.join('&')}`
  }
  return masked ? url.toString() : value
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
