/**
 * The one rule for what is a credential, and the ways of showing text that may hold
 * one. Every output that shows stored provider data goes through it: plans and
 * applies (`***`, `*** (changed)`), export (placeholders), the audit trail, a 422's
 * `input`, the request logs, and provider records shown below `admin`.
 *
 * What is a credential:
 * - every value of a provider's credential headers (`auth_headers`), whatever its name;
 * - in a URL (or a check path, or any text that reads as one): the password of its
 *   userinfo (`user:password@`), or its user name when it stands alone (`token@`,
 *   often a token); and the value of every query parameter whose name, read once
 *   percent-decoded (`api%5Fkey` is `api_key`), is secret-looking (SECRET_NAME);
 * - in a field or key name (the audit trail's, a 422's): a secret-looking name.
 *
 * credentialPieces cuts a text into the pieces shown as they are and the credentials;
 * the masks, the plan's `(changed)` marker and export's placeholders are all made from
 * those pieces. Where a text parses as a URL, the pieces are checked against what the
 * URL parser reads (the parser sends the request, so it decides what the userinfo and
 * the query are): text it reads differently (a tab inside a name, say) is cut from
 * the parser's own serialization instead. Imports nothing.
 */

/** Names (of fields, headers or query parameters) whose values are secrets. */
export const SECRET_NAME = /pass(word)?|pwd|secret|token|key|auth|bearer|jwt|signature|sig$|credential|session/i

/** The mask written in place of a secret. */
export const MASK = '***'

/** The mask of a secret a plan changes: on the `to` side, where the `from` side held another value. */
export const CHANGED_MASK = '*** (changed)'

/** A query parameter name (or any percent-encoded text) as text; as written when it is not valid encoding. */
function decoded (text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '))
  } catch {
    return text
  }
}

/** Whether a name (of a field, header or query parameter) is secret-looking, as written or once percent-decoded. */
export function isSecretName (name: string): boolean {
  return SECRET_NAME.test(name) || SECRET_NAME.test(decoded(name))
}

/** A credential in a text: where it is (`userinfo`, `query`, `fragment`), what names it (`password`, `username`, or the parameter's decoded name) and its value as written. */
export interface Credential {
  readonly place: 'userinfo' | 'query' | 'fragment'
  readonly name: string
  readonly value: string
}

/** A piece of a text: shown as it is, or a credential. */
export type Piece = string | Credential

export interface PieceOptions {
  /** Every query value is a credential (provider records shown below `admin`). */
  readonly everyQueryValue?: boolean
  /**
   * Keep the text as written where the URL parser reads it the same way (plans and
   * export: a reviewer sees what is stored); otherwise a URL that parses is cut from
   * its serialization (`http:/h` reads `http://h/`), as the parser sends it.
   */
  readonly asWritten?: boolean
}

// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const CONTROL_OR_SPACE = /[\x00-\x20\x7f]/

/** A text that starts as a URL does: a scheme (leading whitespace allowed, as the URL parser allows it). */
const SCHEME = /^\s*[a-z][a-z0-9+.-]*:/i

/**
 * The start of a URL written as text, read as loosely as the URL parser reads it:
 * any scheme (or none, `//host`), any slashes, then the authority's userinfo, up to
 * its last `@` (a password may hold one).
 */
const USERINFO = /^(\s*(?:[a-z][a-z0-9+.-]*:[/\\]*|[/\\]{2}))([^/?#\\]*)@/i

/** The pieces of a userinfo (what is between `//` and `@`): the password, else a user name standing alone. */
function userinfoPieces (userinfo: string): Piece[] {
  const colon = userinfo.indexOf(':')
  if (colon !== -1 && colon < userinfo.length - 1) return [userinfo.slice(0, colon + 1), { place: 'userinfo', name: 'password', value: userinfo.slice(colon + 1) }]
  const user = colon === -1 ? userinfo : userinfo.slice(0, colon)
  if (user === '') return [userinfo]
  return [{ place: 'userinfo', name: 'username', value: user }, userinfo.slice(user.length)]
}

/** The pieces of `name=value` pairs joined by `&` (a query, or a fragment written as one). An empty value is no credential. */
function pairPieces (pairs: string, place: Credential['place'], everyValue: boolean): Piece[] {
  const pieces: Piece[] = []
  pairs.split('&').forEach((pair, i) => {
    if (i > 0) pieces.push('&')
    const equals = pair.indexOf('=')
    // A parameter without a value shows its name only; when every value is hidden, not even that.
    if (equals === -1) {
      pieces.push(everyValue && pair !== '' ? { place, name: '', value: pair } : pair)
      return
    }
    const name = pair.slice(0, equals)
    const value = pair.slice(equals + 1)
    if (value === '' || !(everyValue || isSecretName(name))) pieces.push(pair)
    else pieces.push(`${name}=`, { place, name: decoded(name), value })
  })
  return pieces
}

/**
 * The pieces of what follows a URL's authority (or a path): its query, after the first
 * `?` before any `#`, and its fragment, read as pairs too (it is never sent, but
 * `#access_token=…` is a credential all the same; a `?` inside it is read as text).
 */
function queryPieces (text: string, everyQueryValue: boolean): Piece[] {
  const hashAt = text.indexOf('#')
  const body = hashAt === -1 ? text : text.slice(0, hashAt)
  const queryAt = body.indexOf('?')
  const pieces: Piece[] = queryAt === -1 ? [body] : [body.slice(0, queryAt + 1), ...pairPieces(body.slice(queryAt + 1), 'query', everyQueryValue)]
  if (hashAt !== -1) pieces.push('#', ...pairPieces(text.slice(hashAt + 1), 'fragment', everyQueryValue))
  return pieces
}

/** The pieces of `text` read loosely (see USERINFO): its userinfo, if any, then its query. */
function loosePieces (text: string, everyQueryValue: boolean, userinfo = true): Piece[] {
  const match = userinfo ? USERINFO.exec(text) : null
  if (match === null) return queryPieces(text, everyQueryValue)
  const [whole, start, info] = match as unknown as [string, string, string]
  return [start, ...userinfoPieces(info), '@', ...queryPieces(text.slice(whole.length), everyQueryValue)]
}

/** `pieces` with each credential written as `fill` says. */
export function joinPieces (pieces: readonly Piece[], fill: (credential: Credential, index: number) => string): string {
  let index = 0
  return pieces.map((piece) => typeof piece === 'string' ? piece : fill(piece, index++)).join('')
}

/** A mask, or a mask written over a mask (masking is idempotent: the audit trail masks a plan's changes again). */
const isMask = (value: string) => value === MASK || value === CHANGED_MASK

/** `pieces` masked; a credential that already reads as a mask keeps it (`*** (changed)` too). */
const masked = (pieces: readonly Piece[]) => joinPieces(pieces, ({ value }) => isMask(decoded(value)) ? decoded(value) : MASK)

/** Whether `url`, as the parser reads it, still shows a credential that is not a mask. */
function shows (url: URL, everyQueryValue: boolean): boolean {
  if (url.password !== '' ? !isMask(decoded(url.password)) : url.username !== '' && !isMask(decoded(url.username))) return true
  return url.search.slice(1).split('&').some((pair) => {
    const equals = pair.indexOf('=')
    if (equals === -1) return everyQueryValue && pair !== '' && !isMask(decoded(pair))
    const value = pair.slice(equals + 1)
    return value !== '' && (everyQueryValue || isSecretName(pair.slice(0, equals))) && !isMask(decoded(value))
  })
}

/** Parses `text`, or undefined. */
function parsed (text: string): URL | undefined {
  try {
    return new URL(text)
  } catch {
    return undefined
  }
}

/**
 * `text` cut into what is shown as it is and its credentials (see the header);
 * joined back as they are, the pieces are `text` (or, where the parser had the last
 * word, its serialization). The one function that decides what is a credential in a text.
 */
export function credentialPieces (text: string, { everyQueryValue = false, asWritten = false }: PieceOptions = {}): Piece[] {
  // Without `?`, `#` or `@` there is neither a query, a fragment nor a userinfo, however the text is read.
  if (!text.includes('?') && !text.includes('@') && !text.includes('#')) return [text]
  if (SCHEME.test(text)) {
    const url = parsed(text)
    // Text the parser refuses is sent nowhere: masked as text, by the same rules.
    if (url === undefined) return loosePieces(text, everyQueryValue)
    if (asWritten) {
      const pieces = loosePieces(text, everyQueryValue)
      const check = parsed(masked(pieces))
      if (check !== undefined && !shows(check, everyQueryValue)) return pieces
    }
    // The parser's serialization holds its userinfo and query unambiguously (their delimiters are encoded).
    return loosePieces(url.href, everyQueryValue, url.username !== '' || url.password !== '')
  }
  // A path (a check's, a request's), `//host…`, or other text: its userinfo-like start, if any, and its query.
  const pieces = loosePieces(text, everyQueryValue)
  // A path the parser could read otherwise holds a space or a control character (it drops tabs and line breaks).
  if (!text.startsWith('/') || !CONTROL_OR_SPACE.test(text)) return pieces
  const url = parsed(`http://x${text}`)
  if (url === undefined) return pieces
  const check = parsed(`http://x${masked(pieces)}`)
  if (check !== undefined && !shows(check, everyQueryValue)) return pieces
  return loosePieces(`${url.pathname}${url.search}${url.hash}`, everyQueryValue)
}

/**
 * Any text as it may be shown or written (the audit trail's values, a 422's `input`,
 * a log line's request target): its credentials masked (a URL of any scheme, or
 * `//host`, parsed or not; a path; a path refused for not starting with `/`:
 * `h?token=…`). Text without them comes back exactly as it was.
 */
export function maskText (text: string, options: PieceOptions = {}): string {
  const pieces = credentialPieces(text, options)
  return pieces.some((piece) => typeof piece !== 'string') ? masked(pieces) : text
}

/** Every credential of `pieces` by where and what names it, in order (`query:api_key` → its values). */
function credentialsOf (pieces: readonly Piece[]): Map<string, string[]> {
  const found = new Map<string, string[]>()
  for (const piece of pieces) {
    if (typeof piece === 'string') continue
    const key = `${piece.place}:${piece.name}`
    found.set(key, [...(found.get(key) ?? []), piece.value])
  }
  return found
}

/**
 * A URL or a check path as a plan shows it, the text as stored: each credential
 * `***`, or `*** (changed)` where `other` (what it is compared with, the `from` side
 * of an update) holds the same credential — the same userinfo part, or the same
 * parameter name at the same place among those of that name — with another value.
 * A credential added or removed shows as its parameter (or userinfo) appearing or
 * going, with `***`.
 */
export function shownWithChanges (text: string, other: string | null | undefined): string {
  const pieces = credentialPieces(text, { asWritten: true })
  const before = other == null ? new Map<string, string[]>() : credentialsOf(credentialPieces(other, { asWritten: true }))
  const seen = new Map<string, number>()
  return joinPieces(pieces, (piece) => {
    const key = `${piece.place}:${piece.name}`
    const n = seen.get(key) ?? 0
    seen.set(key, n + 1)
    const was = before.get(key)?.[n]
    return was !== undefined && was !== piece.value ? CHANGED_MASK : MASK
  })
}

/** A URL inside free text: a scheme and `//`, up to the next space or quote. */
const URL_IN_TEXT = /[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi

/** Free text (an error's message) with the credentials of every URL in it masked (maskText). */
export function maskUrlsIn (text: string): string {
  return text.replace(URL_IN_TEXT, (url) => maskText(url))
}

/** Shortest stored credential looked for in a provider's answer (shorter ones would mask ordinary text). */
const MIN_ECHOED_LENGTH = 4

/**
 * The stored credentials of a provider, as a provider's answer could echo them: the
 * credential values of its base URL (as written and percent-decoded) and every value
 * of its credential headers (`auth_headers`, stored as a JSON object), each also
 * percent-encoded. For scrubbing what a provider sends back (scrubEchoes).
 */
export function storedCredentialValues (baseUrl: string | null, authHeaders: string | null): string[] {
  const values = new Set<string>()
  const add = (value: string) => {
    for (const form of [value, decoded(value), encodeURIComponent(value)]) if (form.length >= MIN_ECHOED_LENGTH) values.add(form)
  }
  if (baseUrl !== null) for (const piece of credentialPieces(baseUrl)) if (typeof piece !== 'string') add(piece.value)
  if (authHeaders !== null) {
    for (const value of Object.values(JSON.parse(authHeaders) as Record<string, string>)) {
      add(value)
      // `Bearer <token>`, `Basic <base64>`: the token alone too.
      const space = value.indexOf(' ')
      if (space !== -1) add(value.slice(space + 1).trim())
    }
  }
  // Longest first, so a value holding another is masked whole.
  return [...values].sort((a, b) => b.length - a.length)
}

/** `text` with every occurrence of the `secrets` (storedCredentialValues) as `***`; itself when none occurs. */
export function scrubEchoes (text: string, secrets: readonly string[]): string {
  let out = text
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(MASK)
  return out
}
