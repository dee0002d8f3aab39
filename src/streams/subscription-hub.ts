/**
 * An RPC pool's upstream subscriptions, shared (issue 37 item 4): the clients of one
 * pool and path subscribing to the same thing (the same params, written
 * canonically: `newHeads`, one `logs` filter…) share one upstream `eth_subscribe`,
 * whose notifications are fanned out to each under the subscription id sourcepool
 * gave it. One upstream socket per hub carries them all; it opens with the first
 * subscription and closes with the last. When it is lost, another member takes it
 * over (restore.ts) and every live subscription is made again there, the new
 * upstream ids mapped to the same client ids; an `evm` pool's subscriptions go on
 * without a gap or a repeat (evm-continuity.ts). A pool that forwards its clients'
 * credentials shares nothing: each client stream has a hub of its own.
 */
import { randomBytes } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import type WebSocket from 'ws'
import type { Pipelines } from '../proxy/pipeline.js'
import { HeadsContinuity, LogsContinuity, logsFilter } from './evm-continuity.js'
import { watchUpstream } from './liveness.js'
import { originOf, resultOf, type CallOrigin } from './pool-calls.js'
import { MAX_QUICK_LOSSES, quickLossesAfter, restoreUpstream, type Restoring } from './restore.js'
import type { StreamRegistry } from './stream-registry.js'
import type { StreamSettings } from './stream-settings.js'
import type { ClientAsk, StreamMember } from './upstream-connect.js'
import { pickUpstream, type PickRuntime } from './upstream-pick.js'

/** A client stream's side of its subscriptions. */
export interface Sink {
  /** A notification's result (its JSON text) for the client's subscription id. */
  deliver: (subscription: string, resultJson: string) => void
  /** No member took the subscriptions over in time: they are gone. */
  abandoned: () => void
}

/** A subscription's answer: the client's id, or the JSON-RPC error to give. */
export type Subscribed = { readonly id: string } | { readonly error: { readonly code: number, readonly message: string } }

/** Distinct upstream subscriptions one hub (a pool and path) keeps at most. */
export const MAX_SHARED = 10_000
/** EIP-1474's code for a limit exceeded. */
export const LIMIT_EXCEEDED = -32005

/** Notifications of one subscription waiting behind a fill, at most. */
const MAX_QUEUED = 1_000
/** The error a request gets when its upstream is lost before it answers. */
const LOST = { code: -32603, message: 'the upstream stream was lost' }

/** The longest an upstream eth_subscribe may take. */
const SUBSCRIBE_TIMEOUT_MS = 10_000

interface Shared {
  readonly key: string
  readonly params: unknown[]
  upstreamId: string | undefined
  readonly clients: Map<string, Sink>
  /** Resolves once the upstream answered the first subscribe. */
  made: Promise<Subscribed> | undefined
  /** Deliveries in order (an evm fill holds the live ones behind it), and how many wait. */
  chain: Promise<void>
  queued: number
  readonly heads: HeadsContinuity | undefined
  readonly logs: LogsContinuity | undefined
}

/** The params written canonically (object keys sorted), so equal subscriptions share one key. */
export function canonical (value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (typeof value === 'object' && value !== null) {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

interface HubDeps {
  runtime: PickRuntime
  pipelines: Pick<Pipelines, 'forward'>
  registry: StreamRegistry
  random: () => number
  log: FastifyBaseLogger
}

/** One hub: a pool and path's shared subscriptions over one upstream socket. */
export class Hub {
  private socket: WebSocket | undefined
  private member: StreamMember | undefined
  private connecting: Promise<boolean> | undefined
  private stopWatch = () => {}
  private restoring = false
  /** While restoring: resolves once the stream is restored (true) or given up (false). */
  private restored: Promise<boolean> | undefined
  private attachedAt = 0
  private quickLosses = 0
  private closed = false
  private nextId = 1
  private readonly pending = new Map<number, (answer: { result?: unknown, error?: { code: number, message: string } }) => void>()
  private readonly shared = new Map<string, Shared>()
  private readonly byUpstream = new Map<string, Shared>()
  private readonly byClient = new Map<string, Shared>()
  readonly origin: CallOrigin

  constructor (
    private readonly deps: HubDeps, private readonly poolId: number, private readonly pool: StreamSettings & { readonly protocol: string },
    private readonly ask: ClientAsk, private readonly options: { forwardClientAuth: boolean, maxPayload: number }, private readonly gone: () => void
  ) {
    this.origin = originOf(poolId, ask)
  }

  /** Subscribes `sink` to `params`, sharing an upstream subscription with the same params. */
  async subscribe (params: unknown[], sink: Sink): Promise<Subscribed> {
    const key = canonical(params)
    let entry = this.shared.get(key)
    if (entry === undefined && this.shared.size >= MAX_SHARED) return { error: { code: LIMIT_EXCEEDED, message: `this pool has ${MAX_SHARED} distinct subscriptions open, the most it keeps` } }
    if (entry === undefined) {
      entry = this.create(key, params)
      entry.made = this.make(entry)
    }
    const made = await (entry.made as Promise<Subscribed>)
    if ('error' in made) return made
    if (this.shared.get(key) !== entry) return await this.subscribe(params, sink)
    const id = `0x${randomBytes(16).toString('hex')}`
    entry.clients.set(id, sink)
    this.byClient.set(id, entry)
    return { id }
  }

  /** Ends a client's subscription; true when it was one. The upstream one ends with its last client. */
  unsubscribe (id: string): boolean {
    const entry = this.byClient.get(id)
    if (entry === undefined) return false
    this.byClient.delete(id)
    entry.clients.delete(id)
    if (entry.clients.size === 0) this.drop(entry)
    return true
  }

  /** Ends the hub's upstream socket and every subscription (a shutdown). */
  close (): void {
    this.closed = true
    this.disconnect()
  }

  private create (key: string, params: unknown[]): Shared {
    const evm = this.pool.protocol === 'evm'
    const fetch = async (method: string, p: unknown[]) => await resultOf(this.deps.pipelines, this.origin, method, p)
    const emit = (result: unknown) => { this.fanOut(entry, JSON.stringify(result) ?? 'null') }
    const entry: Shared = {
      key,
      params,
      upstreamId: undefined,
      clients: new Map(),
      made: undefined,
      chain: Promise.resolve(),
      queued: 0,
      heads: evm && params[0] === 'newHeads' ? new HeadsContinuity(fetch, emit) : undefined,
      logs: evm && params[0] === 'logs' ? new LogsContinuity(logsFilter(params), fetch, emit, undefined) : undefined
    }
    this.shared.set(key, entry)
    return entry
  }

  /** Makes `entry` upstream (opening the socket first when none is open). */
  private async make (entry: Shared): Promise<Subscribed> {
    if (entry.logs !== undefined) {
      const head = await resultOf(this.deps.pipelines, this.origin, 'eth_blockNumber', [])
      entry.logs.began(typeof head === 'string' ? Number.parseInt(head, 16) : undefined)
    }
    if (!await this.connect()) {
      this.forget(entry)
      return { error: { code: -32603, message: 'no member of the pool could open a stream' } }
    }
    const answer = await this.request('eth_subscribe', entry.params)
    // Asked of an upstream lost before it answered: the member that takes over makes it (resubscribe).
    if (answer.error === LOST && await (this.restored ?? Promise.resolve(false)) && entry.upstreamId !== undefined) {
      this.deps.registry.subscribed(this.poolId, 1)
      return { id: entry.upstreamId }
    }
    if (answer.error !== undefined || typeof answer.result !== 'string') {
      this.forget(entry)
      return { error: answer.error === undefined || answer.error === LOST ? { code: -32603, message: 'the member gave no subscription id' } : answer.error }
    }
    entry.upstreamId = answer.result
    this.byUpstream.set(answer.result, entry)
    this.deps.registry.subscribed(this.poolId, 1)
    return { id: answer.result }
  }

  /** Takes `entry` off the hub; the socket closes with the last one. */
  private forget (entry: Shared): void {
    if (this.shared.get(entry.key) === entry) this.shared.delete(entry.key)
    if (this.shared.size === 0) this.disconnect()
  }

  /** Ends a made subscription, its last client gone: upstream too, when the socket is there to say so. */
  private drop (entry: Shared): void {
    this.deps.registry.subscribed(this.poolId, -1)
    if (entry.upstreamId !== undefined) {
      this.byUpstream.delete(entry.upstreamId)
      if (this.socket !== undefined && !this.restoring) this.request('eth_unsubscribe', [entry.upstreamId]).catch(() => {})
    }
    this.forget(entry)
  }

  private fanOut (entry: Shared, resultJson: string): void {
    for (const [id, sink] of entry.clients) sink.deliver(id, resultJson)
    this.deps.registry.toClients(this.poolId, entry.clients.size)
  }

  /** Opens the upstream socket if none is open; false when no member could. */
  private async connect (): Promise<boolean> {
    if (this.restoring) return await (this.restored as Promise<boolean>)
    if (this.socket !== undefined) return true
    if (this.connecting !== undefined) return await this.connecting
    this.connecting = (async () => {
      const picked = await pickUpstream(this.deps.runtime, this.poolId, this.ask, this.options)
      if (picked.kind !== 'open') return false
      if (this.closed) { picked.socket.close(1000); this.deps.runtime.release(picked.member.id); return false }
      this.attach(picked.member, picked.socket)
      return true
    })().finally(() => { this.connecting = undefined })
    return await this.connecting
  }

  private attach (member: StreamMember, socket: WebSocket): void {
    this.member = member
    this.socket = socket
    this.attachedAt = Date.now()
    this.deps.registry.upstream(this.poolId, member.provider_id, 1)
    socket.on('message', (data: Buffer) => { this.fromUpstream(data) })
    socket.on('close', (code) => { if (this.socket === socket) this.lost(code === 1000 || code === 1001 ? undefined : `closed with ${code}`) })
    socket.on('error', () => {})
    this.stopWatch = watchUpstream(socket, this.pool.ws_ping_interval_ms, (why) => { if (this.socket === socket) { socket.terminate(); this.lost(why) } })
  }

  /** Closes the upstream socket, lets its member go, and fails what waited on it. */
  private disconnect (): void {
    const socket = this.socket
    if (socket !== undefined) {
      this.socket = undefined
      this.stopWatch()
      socket.close(1000)
      this.deps.registry.upstream(this.poolId, (this.member as StreamMember).provider_id, -1)
      this.deps.runtime.release((this.member as StreamMember).id)
    }
    for (const answer of this.pending.values()) answer({ error: { code: -32603, message: 'the upstream stream closed' } })
    this.pending.clear()
    if (this.shared.size === 0 || this.closed) this.gone()
  }

  private async request (method: string, params: unknown[]): Promise<{ result?: unknown, error?: { code: number, message: string } }> {
    const socket = this.socket
    if (socket === undefined) return { error: { code: -32603, message: 'the upstream stream is not open' } }
    const id = this.nextId++
    return await new Promise((resolve) => {
      const timer = setTimeout(() => { this.pending.delete(id); resolve({ error: { code: -32603, message: `no answer to ${method} within ${SUBSCRIBE_TIMEOUT_MS} ms` } }) }, SUBSCRIBE_TIMEOUT_MS)
      this.pending.set(id, (answer) => { clearTimeout(timer); resolve(answer) })
      socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }))
      this.deps.registry.toUpstream(this.poolId)
    })
  }

  private fromUpstream (data: Buffer): void {
    let message: { id?: unknown, method?: unknown, params?: { subscription?: unknown, result?: unknown }, result?: unknown, error?: { code: number, message: string } }
    try {
      message = JSON.parse(data.toString('utf8'))
    } catch {
      return
    }
    if (typeof message.id === 'number') {
      const answer = this.pending.get(message.id)
      this.pending.delete(message.id)
      answer?.({ result: message.result, error: message.error })
      return
    }
    if (message.method !== 'eth_subscription' || typeof message.params?.subscription !== 'string') return
    const entry = this.byUpstream.get(message.params.subscription)
    if (entry === undefined) return
    this.deliver(entry, message.params.result)
  }

  private deliver (entry: Shared, result: unknown): void {
    const { heads, logs } = entry
    if (heads === undefined && logs === undefined) { this.fanOut(entry, JSON.stringify(result) ?? 'null'); return }
    this.inOrder(entry, async () => { if (heads !== undefined) await heads.accept(result); else logs?.accept(result) })
  }

  /**
   * Runs `step` after the entry's deliveries before it (a fill holds the live ones
   * behind it). At most MAX_QUEUED wait: past that (heads coming faster than fills
   * end) a notification is dropped, and the next head's fill brings back what it had.
   */
  private inOrder (entry: Shared, step: () => Promise<void>): void {
    if (entry.queued >= MAX_QUEUED) return
    entry.queued++
    entry.chain = entry.chain.then(step).catch((error: unknown) => {
      this.deps.log.warn({ err: error, pool_id: this.poolId }, 'a subscription\'s notification could not be delivered')
    }).finally(() => { entry.queued-- })
  }

  /** The upstream socket is gone (`why`: the member's failure; undefined for a normal close): another member takes every subscription over. */
  private lost (why: string | undefined): void {
    if (this.closed || this.restoring) return
    const member = this.member as StreamMember
    this.quickLosses = quickLossesAfter(this.quickLosses, this.attachedAt)
    if (this.quickLosses >= MAX_QUICK_LOSSES) { this.abandon(); return }
    this.restoring = true
    if (why !== undefined) this.deps.runtime.report(this.poolId, member.provider_id, { success: false, error: `stream: ${why}` })
    this.stopWatch()
    this.socket = undefined
    this.deps.registry.upstream(this.poolId, member.provider_id, -1)
    this.deps.runtime.release(member.id)
    this.deps.registry.failedOver(this.poolId)
    for (const answer of this.pending.values()) answer({ error: LOST })
    this.pending.clear()
    for (const entry of this.shared.values()) { if (entry.upstreamId !== undefined) this.byUpstream.delete(entry.upstreamId); entry.upstreamId = undefined }
    const restoring: Restoring = { runtime: this.deps.runtime, poolId: this.poolId, ask: this.ask, options: this.options, random: this.deps.random, ended: () => this.closed || this.shared.size === 0 }
    this.restored = restoreUpstream(restoring, member, undefined, this.quickLosses).then(async (next) => {
      if (next === undefined) { this.abandon(); return false }
      if (this.closed || this.shared.size === 0) { next.socket.close(1000); this.deps.runtime.release(next.member.id); this.restoring = false; this.disconnect(); return false }
      this.attach(next.member, next.socket)
      this.restoring = false
      await this.resubscribe()
      return true
    }).catch((error: unknown) => {
      this.deps.log.warn({ err: error, pool_id: this.poolId }, 'a stream could not be restored')
      this.abandon()
      return false
    })
  }

  /** Makes every live subscription again on the new upstream; an evm pool's logs fill what they missed. */
  private async resubscribe (): Promise<void> {
    for (const entry of [...this.shared.values()]) {
      const answer = await this.request('eth_subscribe', entry.params)
      if (typeof answer.result !== 'string') {
        this.deps.log.warn({ pool_id: this.poolId, error: answer.error }, 'a subscription could not be made again after a failover')
        continue
      }
      entry.upstreamId = answer.result
      this.byUpstream.set(answer.result, entry)
      const logs = entry.logs
      if (logs !== undefined) this.inOrder(entry, async () => { await logs.fill() })
    }
  }

  /** No member took the stream over in time: every client subscription is told by its stream closing (rpc-session.ts). */
  private abandon (): void {
    this.restoring = false
    this.closed = true
    const sinks = new Set<Sink>()
    for (const entry of this.shared.values()) for (const sink of entry.clients.values()) sinks.add(sink)
    this.deps.registry.subscribed(this.poolId, -this.shared.size)
    this.shared.clear()
    this.byClient.clear()
    this.disconnect()
    for (const sink of sinks) sink.abandoned()
  }
}

/** Builds the hubs of one app, by key: a pool and path, or one client stream (a pool that forwards credentials). */
export function createHubs (deps: HubDeps) {
  const hubs = new Map<string, Hub>()
  return {
    /** The hub under `key`, made for a stream of `poolId` asking `ask` when there is none. */
    hubFor (key: string, poolId: number, pool: StreamSettings & { readonly protocol: string }, ask: ClientAsk, options: { forwardClientAuth: boolean, maxPayload: number }): Hub {
      let hub = hubs.get(key)
      if (hub === undefined) {
        const made: Hub = new Hub(deps, poolId, pool, ask, options, () => { if (hubs.get(key) === made) hubs.delete(key) })
        hubs.set(key, hub = made)
      }
      return hub
    },
    closeAll (): void {
      for (const hub of [...hubs.values()]) hub.close()
      hubs.clear()
    }
  }
}
