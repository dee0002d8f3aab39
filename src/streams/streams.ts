/**
 * WebSocket streams through a pool (issue 37): an upgrade on `/p/{name}/…` or
 * `/api/pools/{id}/proxy/…` is admitted as a proxied request is (Host, the `client`
 * scope, the pool by id or name), held to its pool's bounds (`ws_max_streams`,
 * `ws_max_streams_per_client`: 429 before the upgrade), and given an upstream
 * before the client's handshake is answered, so a pool that has no member to give
 * answers 503 (or 502 with the attempts) as HTTP. Then an `http` pool relays the
 * stream (relay.ts); a `jsonrpc` or `evm` pool serves JSON-RPC over the socket
 * itself (rpc-session.ts: subscriptions shared through subscription-hub.ts, other
 * calls through the pool's pipeline). `close` ends every stream with 1001.
 */
import { STATUS_CODES, type IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import type { FastifyBaseLogger } from 'fastify'
import WebSocket, { WebSocketServer } from 'ws'
import type { FailureLimiter } from '../auth/failure-limit.js'
import type { Token } from '../auth/tokens.js'
import type { ClientAddress } from '../http/client-address.js'
import { handedOver, lacksHost, NO_HOST_DETAIL } from '../http/connections.js'
import { requestIdOf, REQUEST_ID_HEADER } from '../http/request-id.js'
import { authorize } from '../proxy/admit.js'
import { dataPlaneTarget, proxyUrlOf, type DataPlaneTarget } from '../proxy/entry.js'
import { proxiedPath } from '../proxy/forward.js'
import type { Pipelines } from '../proxy/pipeline.js'
import type { PoolRuntime } from '../runtime/pool-runtime.js'
import { UnsafePathError } from '../rules/upstream-url.js'
import { callHeaders } from './pool-calls.js'
import { Relay, type Frame } from './relay.js'
import { NO_MEMBER_CLOSE } from './restore.js'
import { createHubs } from './subscription-hub.js'
import { RpcSession } from './rpc-session.js'
import type { StreamRegistry } from './stream-registry.js'
import type { StreamSettings } from './stream-settings.js'
import type { ClientAsk, StreamMember } from './upstream-connect.js'
import { pickUpstream } from './upstream-pick.js'

export interface StreamsDeps {
  registry: StreamRegistry
  runtime: Pick<PoolRuntime, 'choose' | 'report' | 'release' | 'pool'>
  pipelines: Pick<Pipelines, 'forward'>
  poolNames: { byName: (name: string) => Promise<number | undefined> }
  tokens: readonly Token[]
  failures: FailureLimiter | undefined
  client: ClientAddress
  log: FastifyBaseLogger
  random?: () => number
}

/** A pool's row as streams read it. */
type StreamPool = StreamSettings & { readonly protocol: string }

/** A pool's stream as its relays are made: what was asked, on which pool. */
interface Stream { poolId: number, pool: StreamPool, ask: ClientAsk, options: { forwardClientAuth: boolean, maxPayload: number } }

/** The RFC 6455 handshake a client must send (ws answers anything else 400 itself, but only after an upstream was spent). */
function handshakeProblem (request: IncomingMessage): string | undefined {
  if (request.method !== 'GET') return 'a WebSocket upgrade must be a GET'
  if ((request.headers.upgrade ?? '').toLowerCase() !== 'websocket') return 'Upgrade must be websocket'
  const key = request.headers['sec-websocket-key']
  if (typeof key !== 'string' || !/^[+/0-9A-Za-z]{22}==$/.test(key)) return 'Sec-WebSocket-Key is missing or invalid'
  const version = request.headers['sec-websocket-version']
  if (version !== '8' && version !== '13') return 'Sec-WebSocket-Version must be 13'
  return undefined
}

/** Writes an HTTP answer on a socket whose upgrade is refused, and closes it. */
function refuse (socket: Duplex, id: string, status: number, body: object, headers: Record<string, string> = {}): void {
  if (!socket.writable) { socket.destroy(); return }
  const text = JSON.stringify(body)
  let head = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\n${REQUEST_ID_HEADER}: ${id}\r\nconnection: close\r\n`
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`
  socket.end(`${head}\r\n${text}`)
}

/** The subprotocols a client offered. */
function offered (request: IncomingMessage): string[] {
  const header = request.headers['sec-websocket-protocol']
  return typeof header === 'string' ? header.split(',').map((p) => p.trim()).filter((p) => p !== '') : []
}

/** Builds the streams of one app. */
export function createStreams (deps: StreamsDeps) {
  const { registry } = deps
  const random = deps.random ?? Math.random
  const hubs = createHubs({ runtime: deps.runtime, pipelines: deps.pipelines, registry, random, log: deps.log })
  let streamCount = 0
  // Client sockets not yet closed, for a shutdown to wait on.
  const clients = new Set<WebSocket>()
  const track = (client: WebSocket) => {
    clients.add(client)
    client.once('close', () => { clients.delete(client) })
  }
  // Shared relays of `http` pools that clients may still join, by pool, path and subprotocols offered.
  const shared = new Map<string, { relay: Relay, protocol: string }>()
  // Shared streams being opened by their first client, which the next ones wait for.
  const opening = new Map<string, Promise<void>>()
  // The subprotocol agreed with the upstream, for the client's handshake (handleProtocols reads it).
  const agreed = new WeakMap<IncomingMessage, string>()
  const servers = new Map<number, WebSocketServer>()
  const serverFor = (maxPayload: number): WebSocketServer => {
    let server = servers.get(maxPayload)
    if (server === undefined) {
      servers.set(maxPayload, server = new WebSocketServer({
        noServer: true,
        maxPayload,
        perMessageDeflate: false,
        clientTracking: false,
        handleProtocols: (protocols, request) => {
          const protocol = agreed.get(request)
          return protocol !== undefined && protocols.has(protocol) ? protocol : false
        }
      }))
    }
    return server
  }
  /** Completes the client's handshake; undefined when the client left meanwhile. */
  const accept = async (request: IncomingMessage, socket: Duplex, head: Buffer, pool: StreamPool, protocol: string): Promise<WebSocket | undefined> => {
    if (socket.destroyed || !socket.writable) return undefined
    if (protocol !== '') agreed.set(request, protocol)
    return await new Promise((resolve) => {
      handedOver.add(socket)
      socket.once('close', () => { resolve(undefined) })
      serverFor(pool.ws_max_message_bytes).handleUpgrade(request, socket, head, (client) => { resolve(client) })
    })
  }

  async function admitted (request: IncomingMessage, socket: Duplex, head: Buffer, target: DataPlaneTarget, id: string): Promise<void> {
    const poolId = target.poolId ?? await deps.poolNames.byName(target.name as string)
    const pool = poolId === undefined ? undefined : await deps.runtime.pool(poolId)
    if (poolId === undefined || pool === undefined) {
      refuse(socket, id, 404, { detail: target.poolId === undefined ? `Pool '${target.name as string}' not found` : `Pool ${target.poolId} not found` })
      return
    }
    const address = deps.client.ip(request)
    const bounded = registry.refusal(poolId, address, pool)
    if (bounded !== undefined) { refuse(socket, id, 429, bounded); return }
    let path: string
    try {
      path = proxiedPath(proxyUrlOf(request.url as string, target, poolId))
    } catch (error) {
      if (error instanceof UnsafePathError) { refuse(socket, id, 400, { detail: error.message }); return }
      throw error
    }
    const ask: ClientAsk = { path, headers: request.headers, protocols: offered(request), peer: request.socket.remoteAddress ?? '', protocol: deps.client.protocol(request), requestId: id }
    const options = { forwardClientAuth: pool.forward_client_auth === 1, maxPayload: pool.ws_max_message_bytes }
    if (pool.protocol !== 'http') {
      const client = await accept(request, socket, head, pool, '')
      if (client === undefined) return
      track(client)
      // Shared by the pool's streams on one path, the hub's upstream carries no client's headers; a pool that forwards credentials gives each stream its own.
      const hubKey = options.forwardClientAuth ? `${poolId} ${id} ${++streamCount}` : `${poolId} ${path}`
      const hubAsk = options.forwardClientAuth ? ask : { ...ask, headers: {}, requestId: `stream-${poolId}` }
      const origin = { poolId, path, headers: callHeaders(request.headers), peer: ask.peer, protocol: ask.protocol, requestId: id }
      const session = { registry, pool, poolId, pipelines: deps.pipelines, origin, hub: () => hubs.hubFor(hubKey, poolId, pool, hubAsk, options) }
      new RpcSession(session, client, address) // eslint-disable-line no-new
      return
    }
    const key = pool.forward_client_auth === 1 ? undefined : `${poolId} ${path} ${ask.protocols.join(',')}`
    // Another client of the same stream is opening it: wait for that, then join it.
    if (key !== undefined) await opening.get(key)
    const joining = key === undefined ? undefined : shared.get(key)
    if (joining !== undefined && joining.relay.joinable) {
      const client = await accept(request, socket, head, pool, joining.protocol)
      if (client !== undefined) { track(client); joining.relay.join(client, address) }
      return
    }
    let opened = () => {}
    if (key !== undefined) {
      opening.set(key, new Promise<void>((resolve) => { opened = resolve }))
      const done = opened
      opened = () => { opening.delete(key); done() }
    }
    try {
      await openRelay(request, socket, head, { poolId, pool, ask, options }, key, id, address)
    } finally {
      opened()
    }
  }

  /** Picks a member for a new relay and opens it; the client's upgrade is answered with what came of it. */
  async function openRelay (request: IncomingMessage, socket: Duplex, head: Buffer, stream: Stream, key: string | undefined, id: string, address: string): Promise<void> {
    const { poolId, pool, ask, options } = stream
    const picked = await pickUpstream(deps.runtime, poolId, ask, options)
    if (picked.kind === 'unknown_pool') { refuse(socket, id, 404, { detail: `Pool ${poolId} not found` }); return }
    if (picked.kind === 'none') {
      if (picked.attempts.length === 0) refuse(socket, id, 503, { detail: `No available providers in pool ${poolId}` }, picked.retryAfterS === null ? {} : { 'retry-after': String(picked.retryAfterS) })
      else refuse(socket, id, 502, { detail: `All providers failed for pool ${poolId}`, attempts: picked.attempts, refusals: picked.refusals })
      return
    }
    const protocol = picked.socket.protocol
    const client = await accept(request, socket, head, pool, protocol)
    if (client === undefined) {
      picked.socket.close(1000)
      deps.runtime.release(picked.member.id)
      return
    }
    track(client)
    relayOf({ ...stream, ask: { ...ask, protocols: protocol === '' ? [] : [protocol] } }, picked.member, picked.socket, key, protocol).join(client, address)
  }

  /** A relay over an open upstream socket; shared under `key` (while it stays so) when given one. */
  function relayOf (stream: Stream, member: StreamMember, upstream: WebSocket, key: string | undefined, protocol: string): Relay {
    const restoring = { runtime: deps.runtime, poolId: stream.poolId, ask: stream.ask, options: stream.options, random }
    const base = { registry, restoring, pool: stream.pool, runtime: deps.runtime }
    if (key === undefined) return new Relay(base, member, upstream)
    const relay: Relay = new Relay({
      ...base,
      unshare: () => { if (shared.get(key)?.relay === relay) shared.delete(key) },
      leave: (client, address, frame) => { ownStream(stream, client, address, frame).catch(() => { client.close(1011, 'the stream could not be opened') }) }
    }, member, upstream)
    shared.set(key, { relay, protocol })
    return relay
  }

  /** A client that spoke on a shared stream: a stream of its own, starting with what it said. */
  async function ownStream (stream: Stream, client: WebSocket, address: string, frame: Frame): Promise<void> {
    const picked = await pickUpstream(deps.runtime, stream.poolId, stream.ask, stream.options)
    if (picked.kind !== 'open') { client.close(NO_MEMBER_CLOSE, 'no member of the pool could take the stream'); return }
    if (client.readyState !== client.OPEN) { picked.socket.close(1000); deps.runtime.release(picked.member.id); return }
    relayOf(stream, picked.member, picked.socket, undefined, '').join(client, address, frame)
  }

  return {
    registry,

    /** The pool a request's upgrade addresses when it is a stream's; undefined leaves it to others (the v1 routes). */
    target: (request: IncomingMessage): DataPlaneTarget | undefined => dataPlaneTarget(request, false),

    /** Takes an upgrade `target` said is a stream's. */
    upgrade (request: IncomingMessage, socket: Duplex, head: Buffer, target: DataPlaneTarget): void {
      // Node takes its own error listener off a socket it hands to 'upgrade'.
      socket.on('error', () => {})
      const id = requestIdOf(request)
      if (lacksHost(request)) { refuse(socket, id, 400, { detail: NO_HOST_DETAIL }); return }
      const problem = handshakeProblem(request)
      if (problem !== undefined) { refuse(socket, id, 400, { detail: `Malformed WebSocket upgrade: ${problem}` }); return }
      const denied = authorize(deps.tokens, deps.failures, deps.tokens.length === 0 ? '' : deps.client.ip(request), request)
      if (denied !== undefined) { refuse(socket, id, denied.status, { detail: denied.detail }, denied.headers); return }
      admitted(request, socket, head, target, id).catch((error: unknown) => {
        deps.log.error({ reqId: id, err: error }, 'stream failed unexpectedly')
        refuse(socket, id, 500, { detail: 'Failed to open the stream' })
      })
    },

    /** Ends every stream with 1001 and waits (at most `graceMs`) for their clients to close; those left are cut. */
    async close (graceMs = 1_000): Promise<void> {
      registry.endAll(1001, 'the service is shutting down')
      hubs.closeAll()
      if (clients.size > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, graceMs)
          const check = () => { if (clients.size === 0) { clearTimeout(timer); resolve() } }
          for (const client of clients) client.once('close', check)
        })
      }
      for (const client of clients) client.terminate()
    }
  }
}

export type Streams = ReturnType<typeof createStreams>
