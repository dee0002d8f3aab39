/**
 * What pydantic 2.5's `HttpUrl` says of a URL this service refuses (`url_parsing`
 * with the reason of the URL parser pydantic uses, or `url_scheme`), so that a
 * person is told what is wrong with the URL, never the pattern a schema checks it
 * with (docs/decisions.md, "Validation"); of a WebSocket URL (a provider's
 * `ws_url`), the same words with the schemes ws and wss, as pydantic's `WebsocketUrl`.
 */
import { pydanticIssue, type ValidationIssue } from '../errors.js'
import type { Words } from './pydantic-errors.js'

/** The two schemes a URL schema allows, plain then secure: http and https (providers' `base_url`), or ws and wss (their `ws_url`). */
export type UrlSchemes = readonly [string, string]

const HTTP_SCHEMES: UrlSchemes = ['http', 'https']

/** The URL schemas' patterns (`^https?://`, `^wss?://`) by their start, with the schemes each allows. */
const URL_PATTERNS: ReadonlyArray<readonly [string, UrlSchemes]> = [['^https?://', HTTP_SCHEMES], ['^wss?://', ['ws', 'wss']]]

/** The schemes of a schema that holds a URL (a string whose pattern starts `^https?://` or `^wss?://`), or undefined for any other schema. */
export function urlSchemes (schema: { pattern?: unknown } | undefined): UrlSchemes | undefined {
  const pattern = schema?.pattern
  return typeof pattern === 'string' ? URL_PATTERNS.find(([start]) => pattern.startsWith(start))?.[1] : undefined
}

/** A schema that holds a URL, of either kind (urlSchemes). */
export const isUrlSchema = (schema: { pattern?: unknown } | undefined) => urlSchemes(schema) !== undefined

/** What the URL parser pydantic uses (the `url` crate) says of an http(s) or ws(s) URL that does not parse. */
function hostProblem (afterScheme: string): string {
  const authority = (/^[/\\]*([^/?#\\]*)/.exec(afterScheme) as RegExpExecArray)[1] as string
  const host = authority.slice(authority.lastIndexOf('@') + 1)
  if (host === '' || host.startsWith(':')) return 'empty host'
  const bracket = host.startsWith('[') ? host.indexOf(']') : -1
  if (host.startsWith('[') && (bracket === -1 || !/^\[[0-9A-Fa-f:.]+\]$/.test(host.slice(0, bracket + 1)))) return 'invalid IPv6 address'
  const port = /:([^:\]]*)$/.exec(host)?.[1]
  if (port !== undefined && (!/^\d*$/.test(port) || Number(port) > 65535)) return 'invalid port number'
  if (/^[\d.]+$/.test(port === undefined ? host : host.slice(0, -port.length - 1))) return 'invalid IPv4 address'
  return 'invalid domain character'
}

/**
 * What pydantic's `HttpUrl` (for `schemes` ws and wss, its `WebsocketUrl`) says of
 * `text` when this service refuses it as a URL: `url_parsing` with the URL parser's
 * reason, or `url_scheme`. Never the pattern a schema checks it with: a person is
 * told what is wrong with the URL. (This service is stricter than pydantic in two
 * ways, said in the same words: no whitespace anywhere, and the scheme written
 * `http://` or `https://` — `ws://` or `wss://`.)
 */
export function urlWords (text: string, schemes: UrlSchemes = HTTP_SCHEMES): Words {
  const parsing = (error: string): Words => ({ type: 'url_parsing', msg: `Input should be a valid URL, ${error}`, ctx: { error } })
  if (text === '') return parsing('input is empty')
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(text)
  if (scheme === null) return parsing('relative URL without a base')
  const [plain, secure] = schemes
  if (!schemes.includes((scheme[1] as string).toLowerCase())) {
    return { type: 'url_scheme', msg: `URL scheme should be '${plain}' or '${secure}'`, ctx: { expected_schemes: `'${plain}' or '${secure}'` } }
  }
  try {
    new URL(text) // eslint-disable-line no-new -- whether it parses is the question
  } catch {
    return parsing(hostProblem(text.slice(scheme[0].length)))
  }
  if (/\s/.test(text)) return parsing('whitespace is not allowed in a URL')
  return parsing(`a URL starts with ${plain}:// or ${secure}://`)
}

/** A URL refused at `loc`, in pydantic's URL words (for the rules a schema cannot state, such as provider.rules.ts's). */
export function urlIssue (loc: ReadonlyArray<string | number>, text: string, schemes: UrlSchemes = HTTP_SCHEMES): ValidationIssue {
  const { type, msg, ctx } = urlWords(text, schemes)
  return pydanticIssue(type, loc, msg, text, ctx)
}
