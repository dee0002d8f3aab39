/**
 * What a connection may cost the service, whoever is on the other end: how long a
 * request may take to arrive, that an unknown route is answered before its body is
 * read, that a shutdown never waits on a request still arriving, and that every
 * answer Node would write on its own (timeouts, malformed HTTP, headers too large, a
 * missing Host, an unmet Expect) is written here instead, with the `{"detail"}`
 * shape, an `x-request-id` and a log line carrying that id.
 */
import { randomUUID } from 'node:crypto'
import { STATUS_CODES, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyInstance, FastifyServerOptions } from 'fastify'
import { maskRequestTarget } from './redact.js'
import { REQUEST_ID_HEADER, requestIdGiven, requestIdOf } from './request-id.js'

/** The timeouts of the HTTP server, from the configuration. */
export interface ConnectionLimits {
  /** The whole request, headers and body, must arrive within this. */
  readonly requestTimeoutMs: number
  /** The headers must arrive within this. */
  readonly headersTimeoutMs: number
  /** An idle keep-alive connection is closed after this. */
  readonly keepAliveTimeoutMs: number
}

const CLIENT_ERRORS: Record<string, [number, (limits: ConnectionLimits) => string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, (l) => `Request timed out: the request must arrive within ${l.requestTimeoutMs} ms (headers within ${l.headersTimeoutMs} ms)`],
  HPE_HEADER_OVERFLOW: [431, () => 'Request headers are too large']
}

/**
 * An HTTP/1.1 answer written whole, for a raw socket Node's server no longer answers
 * on (a connection's error, an upgrade): the status line, `headers` as given, `body`.
 */
export function rawAnswer (status: number, headers: Readonly<Record<string, string>>, body: string): string {
  let head = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n`
  for (const name in headers) head += `${name}: ${headers[name] as string}\r\n`
  return `${head}\r\n${body}`
}

/** The response a connection is busy with (Node keeps it there), if any. */
type HttpSocket = Socket & { _httpMessage?: { req?: IncomingMessage, headersSent?: boolean } | null }

/**
 * Answers an error Node's HTTP parser or timer raised on a connection and closes
 * the connection, so its buffers are freed at once. Most have no request to route
 * (headers too large or malformed, headers too slow), so the answer's id is a fresh
 * one; a body too slow belongs to a request Fastify has, and keeps that request's id.
 */
function clientErrorHandler (limits: ConnectionLimits) {
  return function (this: FastifyInstance, error: Error & { code?: string }, socket: HttpSocket): void {
    if (error.code === 'ECONNRESET' || socket.destroyed) return
    const [status, detail] = CLIENT_ERRORS[error.code ?? ''] ?? [400, () => 'Malformed request']
    const id = requestIdGiven(socket._httpMessage?.req) ?? randomUUID()
    this.log.info({ reqId: id, res: { statusCode: status }, code: error.code, remoteAddress: socket.remoteAddress }, 'connection answered before routing')
    const body = JSON.stringify({ detail: detail(limits) })
    // A response already under way cannot be replaced; the connection just ends.
    if (socket.writable && socket._httpMessage?.headersSent !== true) {
      socket.write(rawAnswer(status, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)), 'X-Request-Id': id, Connection: 'close' }, body))
    }
    socket.destroy()
  }
}

/**
 * Node answers a request whose `Expect` is not `100-continue` with a bare 417 unless
 * someone listens for it: this is that listener, with the `{"detail"}` body and an id.
 */
function expectationFailed (this: FastifyInstance, request: IncomingMessage, response: ServerResponse): void {
  const id = requestIdOf(request)
  this.log.info({ reqId: id, req: { method: request.method, url: maskRequestTarget(request.url ?? '') }, res: { statusCode: 417 } }, 'unmet Expect answered before routing')
  const body = JSON.stringify({ detail: 'Expectation failed: only Expect: 100-continue is supported' })
  response.writeHead(417, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), [REQUEST_ID_HEADER]: id })
  response.end(body)
}

/** Fastify options that put the limits above on every connection. */
export function connectionOptions (limits: ConnectionLimits): Partial<FastifyServerOptions> & { http: ServerOptions } {
  return {
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // Node looks for expired requests every `connectionsCheckingInterval` (30 s by
    // default), which would let a stalled request live up to that much past its timeout.
    // Node would answer an HTTP/1.1 request without Host with a bare 400: guardConnections
    // answers it instead, with an id.
    http: {
      headersTimeout: limits.headersTimeoutMs,
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(limits.headersTimeoutMs / 4))),
      requireHostHeader: false
    },
    clientErrorHandler: clientErrorHandler(limits) as FastifyServerOptions['clientErrorHandler']
  }
}

/** Whether the request announces a body that has not fully arrived yet. */
const bodyArriving = (raw: IncomingMessage) => !raw.complete &&
  (raw.headers['transfer-encoding'] !== undefined || (raw.headers['content-length'] !== undefined && raw.headers['content-length'] !== '0'))

/** An HTTP/1.1 request must name its Host (RFC 9112 §3.2); HTTP/1.0 need not (the data plane's admission asks too). */
export const lacksHost = (raw: IncomingMessage): boolean => raw.headers.host === undefined && raw.httpVersionMajor === 1 && raw.httpVersionMinor === 1

/** What a request without the Host it needs is answered (400, its connection closed). */
export const NO_HOST_DETAIL = 'Malformed request: an HTTP/1.1 request needs a Host header'

/**
 * Sockets handed over to a WebSocket stream (streams/streams.ts): a shutdown leaves
 * them to the stream, which says goodbye with a close frame, instead of cutting them.
 */
export const handedOver = new WeakSet<object>()

/**
 * Registers the connection rules on `app`: unknown routes are answered 404 before
 * their body is read (closing the connection when a body was announced, so it is
 * never read), and once the app is closing, connections whose request has not fully
 * arrived (headers or body) are cut off and every answer closes its connection, so
 * no client can hold the shutdown up. Requests that have arrived finish normally.
 * An HTTP/1.1 request without Host is answered 400 here, with its id.
 */
export function guardConnections (app: FastifyInstance): ConnectionGuard {
  const sockets = new Set<HttpSocket>()
  let closing = false
  const track = (server: Server) => {
    server.on('connection', (socket: HttpSocket) => {
      sockets.add(socket)
      socket.once('close', () => sockets.delete(socket))
    })
    server.on('checkExpectation', expectationFailed.bind(app))
  }
  track(app.server)

  app.addHook('onRequest', (request, reply, done) => {
    if (lacksHost(request.raw)) {
      reply.code(400).header('connection', 'close').send({ detail: NO_HOST_DETAIL })
      return
    }
    if (request.is404) {
      if (bodyArriving(request.raw)) reply.header('connection', 'close')
      reply.code(404).send({ detail: 'Not Found' })
      return
    }
    done()
  })
  app.addHook('onSend', (_request, reply, payload, done) => {
    // A keep-alive connection busy when close began would otherwise stay open (idle).
    if (closing) reply.header('connection', 'close')
    done(null, payload)
  })
  app.addHook('preClose', (done) => {
    closing = true
    for (const socket of sockets) {
      if (handedOver.has(socket)) continue
      const request = socket._httpMessage?.req
      if (request === undefined || !request.complete) socket.destroy()
    }
    done()
  })
  return {
    closing: () => closing,
    guard: (server, limits) => {
      track(server)
      server.on('clientError', clientErrorHandler(limits).bind(app))
    }
  }
}

/** What guardConnections gives the app: whether it is closing, and the same rules for another server of its own. */
export interface ConnectionGuard {
  closing: () => boolean
  /** Puts the rules on a server Fastify does not know (PROXY_PORT's): Node's own answers, a shutdown cutting requests still arriving. */
  guard: (server: Server, limits: ConnectionLimits) => void
}

/** The request as log lines show it: secret-looking query values masked. */
export function requestLogFields (request: { method: string, url: string, ip?: string, socket?: { remotePort?: number } }): Record<string, unknown> {
  return { method: request.method, url: maskRequestTarget(request.url), remoteAddress: request.ip, remotePort: request.socket?.remotePort }
}
