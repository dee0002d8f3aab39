/**
 * WebSocket streams through a pool (issue 37): an upgrade on `/p/{name}/…` or
 * `/api/pools/{id}/proxy/…` is admitted as a proxied request is (Host, the `client`
 * scope, the pool by id or name), checked as a handshake (handshake.ts), held to its
 * pool's bounds (`ws_max_streams`, `ws_max_streams_per_client`: 429 before the
 * upgrade; a stream counts from then, while its upstream is still being opened),
 * and given an upstream before the client's handshake is answered, so a pool that
 * has no member to give answers 503 (or 502 with the attempts) as HTTP. Then an
 * `http` pool relays the stream (relay-open.ts, relay.ts); a `jsonrpc` or `evm`
 * pool serves JSON-RPC over the socket itself (rpc-session.ts: subscriptions shared
 * through subscription-hub.ts, other calls through the pool's pipeline). `close`
 * ends every stream with 1001.
 */
import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import type { FastifyBaseLogger } from 'fastify'
import WebSocket, { WebSocketServer } from 'ws'
import type { FailureLimiter } from '../auth/failure-limit.js'
import type { Token } from '../auth/tokens.js'
import type { ClientAddress } from '../http/client-address.js'
import { handedOver, lacksHost, NO_HOST_DETAIL } from '../http/connections.js'
import { requestIdOf } from '../http/request-id.js'
import { authorize } from '../proxy/admit.js'
import { dataPlaneTarget, proxyUrlOf, type DataPlaneTarget } from '../proxy/entry.js'
import { proxiedPath } from '../proxy/forward.js'
import type { Pipelines } from '../proxy/pipeline.js'
import type { PoolRuntime } from '../runtime/pool-runtime.js'
import { UnsafePathError } from '../rules/upstream-url.js'
import { handshakeProblem, offered, refuse } from './handshake.js'
import { originOf } from './pool-calls.js'
import type { Counted } from './relay.js'
import { createRelays } from './relay-open.js'
import { RpcSession } from './rpc-session.js'
import type { OpenStream, StreamRegistry } from './stream-registry.js'
import type { StreamSettings } from './stream-settings.js'
import { createHubs } from './subscription-hub.js'
import type { ClientAsk } from './upstream-connect.js'

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

/** Builds the streams of one app. */
export function createStreams (deps: StreamsDeps) {
  const { registry } = deps
  const random = deps.random ?? Math.random
  const hubs = createHubs({ runtime: deps.runtime, pipelines: deps.pipelines, registry, random, log: deps.log })
  let streamCount = 0
  // Client sockets not yet closed, for a shutdown to wait on.
  const clients = new Set<WebSocket>()
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
  const accept = async (request: IncomingMessage, socket: Duplex, head: Buffer, pool: StreamSettings, protocol: string): Promise<WebSocket | undefined> => {
    if (socket.destroyed || !socket.writable) return undefined
    if (protocol !== '') agreed.set(request, protocol)
    const client = await new Promise<WebSocket | undefined>((resolve) => {
      handedOver.add(socket)
      socket.once('close', () => { resolve(undefined) })
      serverFor(pool.ws_max_message_bytes).handleUpgrade(request, socket, head, (client) => { resolve(client) })
    })
    if (client !== undefined) {
      clients.add(client)
      client.once('close', () => { clients.delete(client) })
    }
    return client
  }
  const relays = createRelays({ runtime: deps.runtime, registry, random, accept })

  /** An RPC pool's stream: the handshake answered at once, JSON-RPC served on it. */
  async function openSession (request: IncomingMessage, socket: Duplex, head: Buffer, poolId: number, pool: StreamPool, ask: ClientAsk, counted: Counted): Promise<boolean> {
    const client = await accept(request, socket, head, pool, '')
    if (client === undefined) return false
    const options = { forwardClientAuth: pool.forward_client_auth === 1, maxPayload: pool.ws_max_message_bytes }
    // Shared by the pool's streams on one path, the hub's upstream carries no client's headers; a pool that forwards credentials gives each stream its own.
    const hubKey = options.forwardClientAuth ? `${poolId} ${ask.requestId} ${++streamCount}` : `${poolId} ${ask.path}`
    const hubAsk = options.forwardClientAuth ? ask : { ...ask, headers: {}, requestId: `stream-${poolId}` }
    const session = { registry, pool, poolId, pipelines: deps.pipelines, origin: originOf(poolId, ask), hub: () => hubs.hubFor(hubKey, poolId, pool, hubAsk, options) }
    new RpcSession(session, client, counted) // eslint-disable-line no-new
    return true
  }

  async function admitted (request: IncomingMessage, socket: Duplex, head: Buffer, target: DataPlaneTarget, id: string): Promise<void> {
    const poolId = target.poolId ?? await deps.poolNames.byName(target.name as string)
    const pool = poolId === undefined ? undefined : await deps.runtime.pool(poolId)
    if (poolId === undefined || pool === undefined) {
      refuse(socket, id, 404, { detail: target.poolId === undefined ? `Pool '${target.name as string}' not found` : `Pool ${target.poolId} not found` })
      return
    }
    let path: string
    try {
      path = proxiedPath(proxyUrlOf(request.url as string, target, poolId))
    } catch (error) {
      if (error instanceof UnsafePathError) { refuse(socket, id, 400, { detail: error.message }); return }
      throw error
    }
    const address = deps.client.ip(request)
    const bounded = registry.refusal(poolId, address, pool)
    if (bounded !== undefined) { refuse(socket, id, 429, bounded); return }
    // Counted from now: upgrades still opening their upstream hold their place in the bounds.
    const slot: OpenStream = { end: () => { socket.destroy() } }
    const ask: ClientAsk = { path, headers: request.headers, protocols: offered(request), peer: request.socket.remoteAddress ?? '', protocol: deps.client.protocol(request), requestId: id }
    const counted: Counted = { slot, uncount: registry.opened(poolId, address, slot), ask }
    let opened = false
    try {
      opened = pool.protocol === 'http'
        ? await relays.open(request, socket, head, { poolId, pool, ask, options: { forwardClientAuth: pool.forward_client_auth === 1, maxPayload: pool.ws_max_message_bytes } }, id, counted)
        : await openSession(request, socket, head, poolId, pool, ask, counted)
    } finally {
      if (!opened) counted.uncount()
    }
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
