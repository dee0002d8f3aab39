/**
 * A stream's upgrade as HTTP sees it, before any member is asked: whether it is a
 * well-formed RFC 6455 handshake (a GET with `Upgrade: websocket`, a valid key,
 * version 13, subprotocols that are tokens, each once), the subprotocols offered,
 * whether its headers let it share an upstream with others, and the HTTP answer
 * that refuses it (written on the raw socket, which is then closed).
 */
import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import { rawAnswer } from '../http/connections.js'
import { REQUEST_ID_HEADER } from '../http/request-id.js'

/** An RFC 7230 token (a subprotocol's name). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/

/** The subprotocols a client offered, in its order. */
export function offered (request: IncomingMessage): string[] {
  const header = request.headers['sec-websocket-protocol']
  return typeof header === 'string' ? header.split(',').map((p) => p.trim()).filter((p) => p !== '') : []
}

/** What is wrong with an upgrade as a WebSocket handshake, or undefined. */
export function handshakeProblem (request: IncomingMessage): string | undefined {
  if (request.method !== 'GET') return 'a WebSocket upgrade must be a GET'
  if ((request.headers.upgrade ?? '').toLowerCase() !== 'websocket') return 'Upgrade must be websocket'
  const key = request.headers['sec-websocket-key']
  if (typeof key !== 'string' || !/^[+/0-9A-Za-z]{22}==$/.test(key)) return 'Sec-WebSocket-Key is missing or invalid'
  const version = request.headers['sec-websocket-version']
  if (version !== '8' && version !== '13') return 'Sec-WebSocket-Version must be 13'
  const protocols = offered(request)
  if (protocols.some((p) => !TOKEN.test(p)) || new Set(protocols).size !== protocols.length) return 'Sec-WebSocket-Protocol must list distinct tokens'
  return undefined
}

/**
 * Headers a client may send and still share an upstream: the handshake's, the
 * connection's and the browser's own, our token and our forwarding headers. A client
 * sending any other (a key of its own, a cookie) gets a connection of its own, which
 * carries them; a shared one carries none of its clients' headers.
 */
const SHAREABLE = new Set([
  'host', 'connection', 'upgrade', 'sec-websocket-key', 'sec-websocket-version', 'sec-websocket-extensions', 'sec-websocket-protocol',
  'user-agent', 'origin', 'accept', 'accept-encoding', 'accept-language', 'cache-control', 'pragma', 'authorization',
  'x-request-id', 'x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'x-forwarded-port', 'x-real-ip', 'forwarded'
])

/** Whether a client's headers let its stream share an upstream (see SHAREABLE). */
export function shareable (headers: Record<string, unknown>): boolean {
  for (const name in headers) if (!SHAREABLE.has(name) && !name.startsWith('x-sourcepool-')) return false
  return true
}

/** A client's upgrade headers without the handshake's own (`Sec-WebSocket-*`): what goes on to a provider. */
export function withoutHandshake (headers: Record<string, string | string[] | undefined>): Record<string, string | string[] | undefined> {
  const out: Record<string, string | string[] | undefined> = {}
  for (const name in headers) if (!name.startsWith('sec-websocket-')) out[name] = headers[name]
  return out
}

/** Writes an HTTP answer on a socket whose upgrade is refused, and closes it. */
export function refuse (socket: Duplex, id: string, status: number, body: object, headers: Record<string, string> = {}): void {
  if (!socket.writable) { socket.destroy(); return }
  const text = JSON.stringify(body)
  socket.end(rawAnswer(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), [REQUEST_ID_HEADER]: id, connection: 'close', ...headers }, text))
}
