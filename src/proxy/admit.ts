/**
 * Stage 1 of the data plane, admit: what a raw request must pass before any pool
 * is looked at, with the answers Fastify's hooks gave the same request before
 * (connections.ts, auth.plugin.ts, Fastify's body reading): an HTTP/1.1 request
 * without Host is 400; a token is checked for the `client` scope (401, 403, 429 by
 * the shared failure limit); the body is read as bytes, up to PROXY_BODY_LIMIT
 * (413 past it, 400 when it does not match its Content-Length or the client left).
 * GET, HEAD and TRACE bodies are never read, as Fastify never read them; nor is the
 * body of a request that announces none.
 */
import type { IncomingMessage } from 'node:http'
import { checkScope, isRefusal, type AuthRefusal } from '../auth/auth.plugin.js'
import type { FailureLimiter } from '../auth/failure-limit.js'
import type { Token } from '../auth/tokens.js'
import { lacksHost, NO_HOST_DETAIL } from '../http/connections.js'

/** Largest request body the proxy forwards. */
export const PROXY_BODY_LIMIT = 10 * 1024 * 1024

/** A request refused at admission: its status, its extra headers and its `detail`. */
export interface Refused {
  readonly status: number
  readonly headers?: Readonly<Record<string, string>>
  readonly detail: string
  /** The connection is closed after the answer (a body that will never be read). */
  readonly close?: boolean
}

const NO_HOST: Refused = { status: 400, detail: NO_HOST_DETAIL, close: true }
const TOO_LARGE: Refused = { status: 413, detail: 'Request body is too large', close: true }
const LENGTH_MISMATCH: Refused = { status: 400, detail: 'Request body length does not match Content-Length', close: true }
/** The client left (or was cut off by the request timeout) while its body arrived. */
export const BODY_CUT: Refused = { status: 400, detail: 'Malformed request: the connection closed before the body arrived' }

/** The refusal of an HTTP/1.1 request without Host (the rule is connections.ts's, which Fastify's routes use). */
export function hostRefusal (request: IncomingMessage): Refused | undefined {
  return lacksHost(request) ? NO_HOST : undefined
}

/** The `client` scope check (no tokens configured: everyone passes). */
export function authorize (tokens: readonly Token[], failures: FailureLimiter | undefined, ip: string, request: IncomingMessage): AuthRefusal | undefined {
  if (tokens.length === 0) return undefined
  const checked = checkScope(tokens, 'client', failures, ip, request.headers.authorization)
  return isRefusal(checked) ? checked : undefined
}

/** Methods whose body Fastify never read (its "bodyless" methods). */
const BODYLESS = new Set(['GET', 'HEAD', 'TRACE'])

/** True when the request announces a body to read. */
function announcesBody (request: IncomingMessage): boolean {
  if (BODYLESS.has(request.method ?? '')) return false
  const { headers } = request
  return headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined &&
    (headers['content-length'] !== '0' || headers['content-type'] !== undefined))
}

/**
 * The request's body (undefined when it has none), or the refusal that ends it.
 * Calls back once, synchronously when there is nothing to read.
 */
export function readBody (request: IncomingMessage, limit: number, done: (body: Buffer | undefined, refused?: Refused) => void): void {
  if (!announcesBody(request)) { done(undefined); return }
  const declared = request.headers['content-length'] === undefined ? NaN : Number(request.headers['content-length'])
  if (declared > limit) { done(undefined, TOO_LARGE); return }
  const chunks: Buffer[] = []
  let size = 0
  let settled = false
  const finish = (body: Buffer | undefined, refused?: Refused) => {
    if (settled) return
    settled = true
    request.removeListener('data', onData)
    request.removeListener('end', onEnd)
    request.removeListener('error', onError)
    request.removeListener('close', onClose)
    done(body, refused)
  }
  const onData = (chunk: Buffer) => {
    size += chunk.length
    if (size > limit) { finish(undefined, TOO_LARGE); return }
    chunks.push(chunk)
  }
  const onEnd = () => {
    if (!Number.isNaN(declared) && size !== declared) finish(undefined, LENGTH_MISMATCH)
    else finish(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size))
  }
  const onError = () => { finish(undefined, BODY_CUT) }
  const onClose = () => { if (!request.complete) finish(undefined, BODY_CUT) }
  request.on('data', onData)
  request.on('end', onEnd)
  request.on('error', onError)
  request.on('close', onClose)
}
