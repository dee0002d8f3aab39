/**
 * The last stage of the data plane, answer: writes what the request ends with on
 * the raw `node:http` response, as Fastify's reply wrote it before: a `{"detail"}`
 * body (`application/json; charset=utf-8`), or the proxied answer with the
 * service's own headers put on the provider's (`x-sourcepool-provider`,
 * `-attempts`, `-cache`, `Age`, our `x-request-id`), its body streamed, or written
 * at once when it is in memory (a stored answer). CORS (CORS_ORIGINS set) follows
 * @fastify/cors as configured in http/cors.ts: `Vary: Origin` on every answer, and
 * for a request with an Origin the allowed origin and the exposed headers. A
 * provider's own `Access-Control-*` never reaches here (forward.ts drops them).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Readable } from 'node:stream'
import { EXPOSED_HEADERS, METHODS, PREFLIGHT_MAX_AGE_S } from '../http/cors.js'
import { REQUEST_ID_HEADER } from '../http/request-id.js'
import { headerSafe, type AnswerHead } from './answer-head.js'
import type { ServedAnswer } from './cached-proxy.js'

/** The header of an answer that ended its request because the pool's retry budget was spent (`exhausted`). */
export const RETRY_BUDGET_HEADER = 'x-sourcepool-retry-budget'

const JSON_TYPE = 'application/json; charset=utf-8'
const EXPOSED = EXPOSED_HEADERS.join(', ')

/** The service's CORS policy (CORS_ORIGINS): `*` or the exact origins allowed. */
export type CorsOrigins = '*' | readonly string[]

/** What every answer of one request carries. */
export interface ReplyContext {
  readonly id: string
  readonly cors: CorsOrigins | null
  /** The service is closing: every answer closes its connection. */
  readonly closing: boolean
}

/** Where a streamed answer's failure is logged. */
export interface StreamLog {
  info: (fields: object, message: string) => void
  warn: (fields: object, message: string) => void
}

/** A provider's `Vary` with `Origin` added (an answer with CORS headers differs by the caller's origin). */
function varyWithOrigin (vary: string | string[]): string {
  const text = Array.isArray(vary) ? vary.join(', ') : vary
  return /(^|,)\s*(\*|origin)\s*(,|$)/i.test(text) ? text : `${text}, Origin`
}

/** The CORS headers of an answer to `request` (onto `headers`), as @fastify/cors adds them. */
function addCors (headers: Record<string, string | string[]>, cors: CorsOrigins, request: IncomingMessage): void {
  headers.vary = 'Origin'
  const origin = request.headers.origin
  if (origin === undefined) return
  if (cors === '*') headers['access-control-allow-origin'] = '*'
  else if (cors.includes(origin)) headers['access-control-allow-origin'] = origin
  headers['access-control-expose-headers'] = EXPOSED
}

/** The headers every answer of this request starts from. */
function baseHeaders (request: IncomingMessage, context: ReplyContext): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = { [REQUEST_ID_HEADER]: context.id }
  if (context.cors !== null) addCors(headers, context.cors, request)
  if (context.closing) headers.connection = 'close'
  return headers
}

/** True for a CORS preflight (OPTIONS with Origin and Access-Control-Request-Method), rather than an OPTIONS for the provider. */
export const isPreflight = (request: IncomingMessage): boolean =>
  request.method === 'OPTIONS' && request.headers.origin !== undefined && request.headers['access-control-request-method'] !== undefined

/**
 * Answers a CORS preflight as @fastify/cors does on the main port (PROXY_PORT has no
 * Fastify): 204, the allowed methods, the request headers asked for, the max age.
 */
export function sendPreflight (request: IncomingMessage, response: ServerResponse, context: ReplyContext & { cors: CorsOrigins }): void {
  const headers = baseHeaders(request, context)
  headers.vary = 'Origin, Access-Control-Request-Headers'
  headers['access-control-allow-methods'] = METHODS.join(', ')
  const asked = request.headers['access-control-request-headers']
  if (asked !== undefined) headers['access-control-allow-headers'] = asked
  headers['access-control-max-age'] = String(PREFLIGHT_MAX_AGE_S)
  headers['content-length'] = '0'
  response.writeHead(204, headers)
  response.end()
}

/** Answers `status` with `{"detail": …, ...extra}` and `headers`. */
export function sendDetail (
  request: IncomingMessage, response: ServerResponse, context: ReplyContext, status: number, body: object, headers?: Readonly<Record<string, string>>
): void {
  const text = JSON.stringify(body)
  const all = baseHeaders(request, context)
  if (headers !== undefined) Object.assign(all, headers)
  all['content-type'] = JSON_TYPE
  all['content-length'] = String(Buffer.byteLength(text))
  response.writeHead(status, all)
  response.end(text)
}

/** The proxied answer (kind `answer`): the provider's headers with ours, and its body. */
export function sendAnswer (
  request: IncomingMessage, response: ServerResponse, context: ReplyContext, answer: Extract<ServedAnswer, { kind: 'answer' }>, log: StreamLog
): void {
  if ('head' in answer && answer.head !== undefined && context.cors === null) { sendStored(response, context, answer, answer.head); return }
  const headers = baseHeaders(request, context)
  // Before the provider's headers, where Fastify's reply had it (clients and docs read them in this order).
  if (answer.cache !== undefined) headers['x-sourcepool-cache'] = answer.cache
  const own = answer.headers
  for (const name in own) headers[name] = own[name] as string | string[]
  // The provider's Vary replaces the CORS one: it must keep saying Origin.
  if (context.cors !== null && own.vary !== undefined) headers.vary = varyWithOrigin(own.vary)
  headers['x-sourcepool-provider'] = headerSafe(answer.provider ?? '')
  headers['x-sourcepool-attempts'] = String(answer.attempts)
  if (answer.age !== undefined) headers.age = String(answer.age)
  if (answer.retryBudget !== undefined) headers[RETRY_BUDGET_HEADER] = answer.retryBudget
  // Ours, whatever the provider sent (downstreamHeaders moved its own to x-upstream-request-id).
  headers[REQUEST_ID_HEADER] = context.id
  if (context.closing) headers.connection = 'close'
  const body = answer.body
  if (body === null) {
    // No payload: its headers (Content-Length included) go back as sent; a body-bearing status says 0.
    if (answer.status >= 200 && answer.status !== 204 && answer.status !== 304 && request.method !== 'HEAD') headers['content-length'] = '0'
    response.writeHead(answer.status, headers)
    response.end()
    return
  }
  if (Buffer.isBuffer(body)) {
    // A 204 or 304 has no body, and says no length (RFC 9110 §8.6).
    if (answer.status !== 204 && answer.status !== 304) headers['content-length'] = String(body.length)
    response.writeHead(answer.status, headers)
    response.end(body)
    return
  }
  response.writeHead(answer.status, headers)
  stream(body, response, log)
}

/**
 * A stored answer (a HIT, a STALE, a waiter's) with its entry's head as built once
 * (answer-head.ts): the request's id, the cache result, the entry's headers, the
 * attempts and the Age, as one flat list, in the order sendAnswer writes them. Not
 * for a request with CORS (its Vary and origin are the request's own: sendAnswer).
 */
function sendStored (
  response: ServerResponse, context: ReplyContext, answer: Extract<ServedAnswer, { kind: 'answer' }>, head: AnswerHead
): void {
  const headers: Array<string | string[]> = context.closing ? [REQUEST_ID_HEADER, context.id, 'connection', 'close'] : [REQUEST_ID_HEADER, context.id]
  if (answer.cache !== undefined) headers.push('x-sourcepool-cache', answer.cache)
  for (let i = 0; i < head.flat.length; i++) headers.push(head.flat[i] as string | string[])
  headers.push('x-sourcepool-attempts', String(answer.attempts))
  if (answer.age !== undefined) headers.push('age', String(answer.age))
  else if (head.headers.age !== undefined) headers.push('age', head.headers.age)
  response.writeHead(answer.status, headers as string[])
  response.end(Buffer.isBuffer(answer.body) ? answer.body : undefined)
}

/** The error undici gives a response body destroyed because the client went away. */
const ABORTED_BY_US = 'UND_ERR_ABORTED'

/**
 * Streams `body` to the client (pipe: no pipeline, whose per-call AbortController
 * costs a DOMException at every end); a client that leaves first is routine (info),
 * and the provider's body is let go; a body that fails is a warning and cuts the answer.
 */
function stream (body: Readable, response: ServerResponse, log: StreamLog): void {
  // The client left before its answer started: nothing will read the provider's body, let it go now.
  if (response.destroyed || response.socket === null || response.socket.destroyed) {
    log.info({ res: { statusCode: response.statusCode } }, 'client closed the connection during a streamed answer')
    body.on('error', () => {}).destroy()
    return
  }
  // The body failed before anyone read it (an RPC answer read in part, then reset): the answer is cut.
  if (body.errored !== null && body.errored !== undefined) {
    log.warn({ err: body.errored }, 'response terminated with an error with headers already sent')
    response.destroy()
    return
  }
  let failed = false
  const onError = (error: Error & { code?: string }) => {
    failed = true
    if (response.destroyed && error.code === ABORTED_BY_US) return
    log.warn({ err: error }, 'response terminated with an error with headers already sent')
    response.destroy()
  }
  body.on('error', onError)
  response.once('close', () => {
    if (failed || body.readableEnded) return
    log.info({ res: { statusCode: response.statusCode } }, 'client closed the connection during a streamed answer')
    body.destroy()
  })
  body.pipe(response)
}
