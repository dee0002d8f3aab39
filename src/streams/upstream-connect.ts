/**
 * Opening one upstream WebSocket to a pool member (issue 37): the member's `ws_url`,
 * or its `base_url` with `ws`/`wss` for `http`/`https`, with the client's path and
 * query under it (rules/upstream-url.ts, never outside the provider's origin); the
 * client's headers handled as for an HTTP request (forward.ts upstreamHeaders: its
 * token and forwarded-host headers stay here, its provider credentials go only when
 * the pool forwards them), the provider's credentials added, and the subprotocols
 * the client offered. The answer says what happened in the terms the runtime's
 * health reads: open, refused (the provider's HTTP status), or failed to connect.
 */
import WebSocket from 'ws'
import { upstreamHeaders } from '../proxy/forward.js'
import { parseBase, providerCredentials, upstreamTarget } from '../rules/upstream-url.js'
import { withoutHandshake } from './handshake.js'

/** What a stream reads of a member to reach it. */
export interface StreamMember {
  readonly id: number
  readonly provider_id: number
  readonly provider_name: string | null
  readonly base_url: string | null
  readonly ws_url: string | null
  readonly auth_headers: string | null
  readonly timeout_ms: number | null
}

/** The WebSocket base of a member: its `ws_url`, else its `base_url` as ws/wss; undefined when it has neither. */
export function wsBaseOf (member: Pick<StreamMember, 'ws_url' | 'base_url'>): string | undefined {
  if (member.ws_url !== null) return member.ws_url
  if (member.base_url === null) return undefined
  return member.base_url.replace(/^http(s?):/i, (_all, secure: string) => `ws${secure}:`)
}

/** How a connection attempt ended. */
export type Connected =
  | { readonly kind: 'open', readonly socket: WebSocket, readonly latencyMs: number }
  | { readonly kind: 'refused', readonly status: number }
  | { readonly kind: 'failed', readonly error: string }

/** What the client asked, as the upstream handshake needs it. */
export interface ClientAsk {
  /** Path and query under the pool (`/ws/btcusdt@trade?x=1`). */
  readonly path: string
  readonly headers: Record<string, string | string[] | undefined>
  readonly protocols: readonly string[]
  readonly peer: string
  readonly protocol: string
  readonly requestId: string
}

/** The longest a handshake may take when the member sets no `timeout_ms`. */
export const HANDSHAKE_TIMEOUT_MS = 10_000

/** Opens the upstream socket for `ask` on `member`; never rejects. */
export async function connectUpstream (
  member: StreamMember, ask: ClientAsk, options: { forwardClientAuth: boolean, maxPayload: number }
): Promise<Connected> {
  const base = wsBaseOf(member)
  if (base === undefined) return { kind: 'failed', error: 'the provider has no base_url or ws_url' }
  let url: string
  let headers: Record<string, string | string[]>
  try {
    const target = upstreamTarget(parseBase(base), ask.path)
    url = `${target.origin}${target.path}`
    // The handshake's own headers are `ws`'s to set, never the client's.
    headers = upstreamHeaders(withoutHandshake(ask.headers), {
      peer: ask.peer,
      protocol: ask.protocol,
      forwardClientAuth: options.forwardClientAuth,
      providerHeaders: providerCredentials(member.base_url ?? base, member.auth_headers),
      requestId: ask.requestId
    })
  } catch (error) {
    return { kind: 'failed', error: (error as Error).message }
  }
  const started = performance.now()
  let socket: WebSocket
  try {
    socket = new WebSocket(url, [...ask.protocols], {
      headers: headers as Record<string, string>,
      maxPayload: options.maxPayload,
      handshakeTimeout: member.timeout_ms ?? HANDSHAKE_TIMEOUT_MS,
      perMessageDeflate: false,
      followRedirects: false
    })
  } catch (error) {
    // A URL or a subprotocol `ws` will not send (the handshake check lets none through).
    return { kind: 'failed', error: (error as Error).message }
  }
  return await new Promise((resolve) => {
    let settled = false
    const settle = (result: Connected) => {
      if (settled) return
      settled = true
      socket.off('open', onOpen)
      resolve(result)
    }
    const onOpen = () => { settle({ kind: 'open', socket, latencyMs: Math.round(performance.now() - started) }) }
    socket.on('open', onOpen)
    socket.once('unexpected-response', (_request, response) => {
      response.resume()
      socket.terminate()
      settle({ kind: 'refused', status: response.statusCode ?? 502 })
    })
    // After the open, the stream that owns the socket listens for its errors.
    socket.on('error', (error) => { settle({ kind: 'failed', error: error.message }) })
  })
}
