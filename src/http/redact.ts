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
 * `value` with its password and secret-looking query values (or, with
 * `everyQueryValue`, every query value) masked; a URL without secrets, or text
 * that is not a URL, comes back exactly as it was.
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
  }
  for (const key of [...new Set(url.searchParams.keys())]) {
    if (everyQueryValue || SECRET_NAME.test(key)) {
      const count = url.searchParams.getAll(key).length
      url.searchParams.delete(key)
      for (let i = 0; i < count; i++) url.searchParams.append(key, MASK)
      masked = true
    }
  }
  return masked ? url.toString() : value
}

/** A request target (`/path?query`) with secret-looking query values masked, for logs. */
export function maskRequestTarget (target: string): string {
  const queryAt = target.indexOf('?')
  if (queryAt === -1) return target
  const masked = maskUrl(`http://x${target.startsWith('/') ? '' : '/'}${target}`)
  if (!masked.includes(MASK)) return target
  return `${target.slice(0, queryAt)}${new URL(masked).search}`
}
