// Why: every call to the service goes through here, with the token the page was
// given (kept in sessionStorage, sent as a bearer header, never in a URL), and
// every refusal turns into the service's own error text.
const TOKEN_KEY = 'sourcepool.token'

export const token = {
  get: () => sessionStorage.getItem(TOKEN_KEY),
  set: (value) => sessionStorage.setItem(TOKEN_KEY, value),
  clear: () => sessionStorage.removeItem(TOKEN_KEY)
}

/** A refused call: `status` and the service's `detail` as one readable line. */
export class ApiError extends Error {
  constructor (status, message) {
    super(message)
    this.status = status
  }
}

/** A 422 entry's words for a person: pydantic's `Value error, ` left out; for JSON that does not parse, why. */
function issueText (d) {
  if (d.type === 'json_invalid' && typeof d.ctx?.error === 'string') return d.ctx.error
  return String(d.msg ?? '').replace(/^Value error, /, '')
}

/** The `detail` of an error body as text: a string as is, a 422's list as `field: message` parts. */
export function detailText (body, status) {
  const detail = body?.detail
  if (typeof detail === 'string') return detail
  if (Array.isArray(detail)) {
    return detail.map((d) => `${(d.loc ?? []).filter((part) => part !== 'body').join('.')}: ${issueText(d)}`).join('; ')
  }
  return `The service answered ${status}`
}

const refusedListeners = new Set()

/** Calls `listener(message)` when the service stops accepting this tab's token (a 401 after sign-in). */
export function onTokenRefused (listener) {
  refusedListeners.add(listener)
  return () => refusedListeners.delete(listener)
}

/** Tells the page its token is no longer accepted (from any call or the event stream). */
export function tokenRefused (message) {
  for (const listener of refusedListeners) listener(message)
}

export function authHeaders () {
  const secret = token.get()
  return secret === null ? {} : { authorization: `Bearer ${secret}` }
}

/** Calls the API; resolves with the JSON answer, rejects with an ApiError. */
export async function api (method, path, body) {
  const headers = { accept: 'application/json', ...authHeaders() }
  if (body !== undefined) headers['content-type'] = 'application/json'
  let response
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
  } catch {
    throw new ApiError(0, 'The service did not answer (is it running?)')
  }
  const text = await response.text()
  let data = null
  try {
    data = text === '' ? null : JSON.parse(text)
  } catch {
    data = null
  }
  if (!response.ok) {
    const error = new ApiError(response.status, detailText(data, response.status))
    // A token that worked and is refused now (revoked, or the service restarted without it):
    // back to the prompt, instead of failing every 15 s towards AUTH_FAILURE_LIMIT.
    if (response.status === 401 && path !== '/api/session') tokenRefused(error.message)
    throw error
  }
  return data
}

export const get = (path) => api('GET', path)
