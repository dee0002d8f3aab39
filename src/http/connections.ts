/**
 * What a connection may cost the service, whoever is on the other end: how long a
 * request may take to arrive, that an unknown route is answered before its body is
 * read, that a shutdown never waits on a request still arriving, and that every
 * error Node answers on its own (timeouts, malformed HTTP) has the `{"detail"}` shape.
 */
import type { IncomingMessage, ServerOptions } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyInstance, FastifyServerOptions } from 'fastify'
import { maskRequestTarget } from './redact.js'

/** The timeouts of the HTTP server, from the configuration. */
export interface ConnectionLimits {
  /** The whole request, headers and body, must arrive within this. */
  readonly requestTimeoutMs: number
  /** The headers must arrive within this. */
  readonly headersTimeoutMs: number
  /** An idle keep-alive connection is closed after this. */
  readonly keepAliveTimeoutMs: number
}

const CLIENT_ERRORS: Record<string, [number, string, (limits: ConnectionLimits) => string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', (l) => `Request timed out: the request must arrive within ${l.requestTimeoutMs} ms (headers within ${l.headersTimeoutMs} ms)`],
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', () => 'Request headers are too large']
}

/**
 * Answers an error Node's HTTP parser or timer raised on a connection (there is no
 * request to route) and closes the connection, so its buffers are freed at once.
 */
function clientErrorHandler (limits: ConnectionLimits) {
  return function (this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
    if (error.code === 'ECONNRESET' || socket.destroyed) return
    const [status, reason, detail] = CLIENT_ERRORS[error.code ?? ''] ?? [400, 'Bad Request', () => 'Malformed request']
    this.log.debug({ err: error }, 'client error')
    const body = JSON.stringify({ detail: detail(limits) })
    // A response already under way cannot be replaced; the connection just ends.
    const responding = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true
    if (socket.writable && !responding) {
      socket.write(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`)
    }
    socket.destroy()
  }
}

/** Fastify options that put the limits above on every connection. */
export function connectionOptions (limits: ConnectionLimits): Partial<FastifyServerOptions> & { http: ServerOptions } {
  return {
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // Node looks for expired requests every `connectionsCheckingInterval` (30 s by
    // default), which would let a stalled request live up to that much past its timeout.
    http: {
      headersTimeout: limits.headersTimeoutMs,
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(limits.headersTimeoutMs / 4)))
    },
    clientErrorHandler: clientErrorHandler(limits) as FastifyServerOptions['clientErrorHandler']
  }
}

/** Whether the request announces a body that has not fully arrived yet. */
const bodyArriving = (raw: IncomingMessage) => !raw.complete &&
  (raw.headers['transfer-encoding'] !== undefined || (raw.headers['content-length'] !== undefined && raw.headers['content-length'] !== '0'))

/** The response a connection is busy with (Node keeps it there), if any. */
type HttpSocket = Socket & { _httpMessage?: { req?: IncomingMessage } | null }

/**
 * Registers the connection rules on `app`: unknown routes are answered 404 before
 * their body is read (closing the connection when a body was announced, so it is
 * never read), and once the app is closing, connections whose request has not fully
 * arrived (headers or body) are cut off and every answer closes its connection, so
 * no client can hold the shutdown up. Requests that have arrived finish normally.
 */
export function guardConnections (app: FastifyInstance): void {
  const sockets = new Set<HttpSocket>()
  let closing = false
  app.server.on('connection', (socket: HttpSocket) => {
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
  })

  app.addHook('onRequest', (request, reply, done) => {
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
      const request = socket._httpMessage?.req
      if (request === undefined || !request.complete) socket.destroy()
    }
    done()
  })
}

/** The request as log lines show it: secret-looking query values masked. */
export function requestLogFields (request: { method: string, url: string, ip?: string, socket?: { remotePort?: number } }): Record<string, unknown> {
  return { method: request.method, url: maskRequestTarget(request.url), remoteAddress: request.ip, remotePort: request.socket?.remotePort }
}
