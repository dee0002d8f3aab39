/**
 * How the CLI reaches the service and says, in one line, why a call failed: the
 * address it was given, the service unreachable, a token missing, refused or too weak
 * (naming where the token came from, never the token), a 422 one line per field;
 * and pools and providers named by name or id.
 */
import type { SourcepoolClient } from '../client/index.js'
import { issueText } from '../errors.js'
import { maskText, maskUrlsIn } from '../rules/secrets.js'

/** An error shown as its message, with an exit code. */
export class CliError extends Error {
  constructor (message: string, readonly exitCode = 1) { super(message) }
}

/** What openapi-fetch answers. */
export interface Answer<T> { data?: T, error?: unknown, response: Response }

/** Where the token sent came from (`--token` or `SOURCEPOOL_TOKEN`); undefined when none was sent. */
export type TokenSource = '--token' | 'SOURCEPOOL_TOKEN' | undefined

/** The scope a 403 says the operation needs (RFC 6750's `WWW-Authenticate: Bearer error="insufficient_scope", scope="admin"`). */
function neededScope (response: Response): string | undefined {
  const challenge = response.headers.get('www-authenticate') ?? ''
  return /\bscope="([^"]+)"/.exec(challenge)?.[1]
}

/** The words for a 401 or 403: a token missing, refused or too weak. */
function authRefusal (status: 401 | 403, text: string, response: Response, token: TokenSource): string {
  if (status === 401) {
    return token === undefined
      ? `the service wants a token (401): ${text}; set SOURCEPOOL_TOKEN or --token`
      : `the service refused the token given by ${token} (401): ${text}; it is not one of the service's tokens (AUTH_TOKENS)`
  }
  const scope = neededScope(response)
  const given = token === undefined ? 'the service' : `the token given by ${token}`
  return `${given} may not do this (403): ${text}${scope === undefined ? '' : `; it needs a token of scope ${scope}`}`
}

/** The service's words for a refused request, one line (a 422 one line per field, without pydantic's `Value error, `). */
export function refusal (response: Response, error: unknown, token: TokenSource): string {
  const status = response.status
  const detail = (error as { detail?: unknown } | undefined)?.detail
  if (status === 422 && Array.isArray(detail)) {
    return ['the service refused the request:', ...detail.map((d: { loc?: unknown[], type?: string, msg?: string, ctx?: Record<string, unknown> }) =>
      `  ${(d.loc ?? []).join('.')}: ${issueText({ type: d.type ?? '', msg: d.msg ?? '', ctx: d.ctx })}`)].join('\n')
  }
  const text = typeof detail === 'string' ? detail : JSON.stringify(error)
  if (status === 401 || status === 403) return authRefusal(status, text, response, token)
  if (status === 409) return `${text} (409)`
  // The service's sentence says what is missing (`Pool 7 not found`); a bare `Not Found` is a path it lacks.
  if (status === 404 && typeof detail === 'string' && detail !== 'Not Found') return text
  return `the service answered ${status}: ${text}`
}

/**
 * The service's address as given (--url or SOURCEPOOL_URL, named by `source` in a refusal):
 * without a scheme it is http:// (`localhost:8000`, as curl takes it); a scheme other than
 * http:// or https://, or text that is no URL, is refused in a line (a password in it masked).
 */
export function serviceUrl (text: string, source = '--url'): string {
  const withScheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(text) ? text : `http://${text}`
  let url: URL
  try {
    url = new URL(withScheme)
  } catch {
    throw new CliError(`${source} ${maskText(text)} is not a URL: give the service's address, such as http://127.0.0.1:8000`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CliError(`${source} ${maskText(text)}: the service is reached over http:// or https://, not ${url.protocol}//`)
  }
  return withScheme
}

/** The answer's data, or a CliError saying why there is none (the service unreachable included). */
export async function call<T> (url: string, token: TokenSource, request: () => Promise<Answer<T>>): Promise<T> {
  let answer: Answer<T>
  try {
    answer = await request()
  } catch (error) {
    const cause = (error as { cause?: { code?: string, message?: string } }).cause
    // An error's words may hold the address (`…a URL that includes credentials: http://u:pw@…`): its credentials masked.
    throw new CliError(maskUrlsIn(`cannot reach the service at ${url} (${cause?.code ?? cause?.message ?? (error as Error).message}); is it running? (SOURCEPOOL_URL or --url)`))
  }
  if (!answer.response.ok) throw new CliError(refusal(answer.response, answer.error, token))
  return answer.data as T
}

/** Sends a request through the client and answers its data (see `call`). */
export type Ask = <T>(request: (api: SourcepoolClient) => Promise<Answer<T>>) => Promise<T>

/**
 * The id of a pool named by id or name. With `known`, a pool named by id is looked up
 * first, for the calls that do not say `Pool <id> not found` themselves: rotate and
 * failover answer an unknown pool as one without an available provider, history as
 * one without records (the contract's answers).
 */
export async function poolId (ask: Ask, pool: string, known = false): Promise<number> {
  if (/^\d+$/.test(pool)) {
    const id = Number(pool)
    if (known) await ask(async (api) => await api.GET('/api/pools/{pool_id}', { params: { path: { pool_id: id } } }))
    return id
  }
  const list = await ask(async (api) => await api.GET('/api/pools', { params: { query: { fields: 'summary' } } }))
  const found = (list.pools as Array<{ pool_id: number, name: string }>).find((p) => p.name === pool)
  if (found === undefined) throw new CliError(`no pool named '${pool}'`)
  return found.pool_id
}

/** The id of a provider named by id or name. */
export async function providerId (ask: Ask, provider: string): Promise<number> {
  if (/^\d+$/.test(provider)) return Number(provider)
  const list = await ask(async (api) => await api.GET('/api/providers'))
  const found = list.find((p) => p.name === provider)
  if (found === undefined) throw new CliError(`no provider named '${provider}'`)
  return found.provider_id
}
