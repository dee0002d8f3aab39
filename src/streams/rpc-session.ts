/**
 * A client's stream on a `jsonrpc` or `evm` pool: JSON-RPC over the socket, served
 * here rather than relayed, so a failover never reaches the client. `eth_subscribe`
 * and `eth_unsubscribe` go to the pool's hub (subscription-hub.ts: shared upstream
 * subscriptions, ids that stay the client's across failovers); every other call,
 * single or batch, goes through the pool's pipeline as an HTTP POST would (its
 * cache, coalescing, failover and quotas), and its answer comes back on the socket.
 * At most MAX_CALLS calls are in flight per stream (the socket is read no further
 * meanwhile); a client whose send buffer passes `ws_send_buffer_bytes` is closed
 * with 1013; one silent for `ws_idle_timeout_ms` is closed with 1000.
 */
import type WebSocket from 'ws'
import type { Pipelines } from '../proxy/pipeline.js'
import { MAX_BATCH_CALLS } from '../rules/jsonrpc.js'
import { watchIdle } from './liveness.js'
import { callPool, errorText, type CallOrigin } from './pool-calls.js'
import { NO_MEMBER_CLOSE } from './restore.js'
import type { StreamRegistry } from './stream-registry.js'
import type { StreamSettings } from './stream-settings.js'
import type { Counted } from './relay.js'
import { LIMIT_EXCEEDED, type Hub, type Sink } from './subscription-hub.js'

/** Calls of one stream in flight at once. */
export const MAX_CALLS = 64
/** Calls of a batch holding a subscription sent at once (a batch without one goes whole, as a POST). */
const BATCH_CONCURRENCY = 16
/** Subscriptions one client stream may hold. */
export const MAX_SUBSCRIPTIONS = 100

type Call = { readonly jsonrpc?: unknown, readonly id?: unknown, readonly method?: unknown, readonly params?: unknown }

const SUBSCRIPTION_METHODS = new Set(['eth_subscribe', 'eth_unsubscribe'])

export interface SessionDeps {
  readonly registry: StreamRegistry
  readonly pool: StreamSettings
  readonly poolId: number
  /** The hub this stream subscribes through (asked at each subscription: a hub whose last subscription ended is made again). */
  readonly hub: () => Hub
  readonly pipelines: Pick<Pipelines, 'forward'>
  /** The stream as its calls through the pool are made (its client's headers, its path). */
  readonly origin: CallOrigin
}

/** Serves one client socket of an RPC pool until it closes. */
export class RpcSession implements Sink {
  private readonly subscriptions = new Map<string, Hub>()
  private inFlight = 0
  private subscribing = 0
  private ended = false
  private lastActive = Date.now()
  private readonly stopIdle: () => void
  private readonly uncount: () => void

  /** Serves `client`, counted in the registry before its upgrade was answered. */
  constructor (private readonly deps: SessionDeps, private readonly client: WebSocket, counted: Counted) {
    this.uncount = counted.uncount
    counted.slot.end = (code, reason) => { this.end(code, reason) }
    client.on('message', (data: Buffer) => { this.received(data) })
    client.on('close', () => { this.end(1000, '') })
    client.on('error', () => {})
    this.stopIdle = watchIdle(deps.pool.ws_idle_timeout_ms, () => this.lastActive, () => { this.end(1000, 'idle for ws_idle_timeout_ms') })
  }

  deliver (subscription: string, resultJson: string): void {
    const text = `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"${subscription}","result":${resultJson}}}`
    if (text.length > this.deps.pool.ws_max_message_bytes && Buffer.byteLength(text) > this.deps.pool.ws_max_message_bytes) { this.end(1009, 'a notification is larger than ws_max_message_bytes'); return }
    this.send(text)
  }

  abandoned (): void { this.end(NO_MEMBER_CLOSE, 'no member of the pool could take the subscriptions over') }

  /** Ends the stream: its subscriptions let go, `code` and `reason` to the client when it is still open. */
  end (code: number, reason: string): void {
    if (this.ended) return
    this.ended = true
    this.stopIdle()
    this.uncount()
    for (const [id, hub] of this.subscriptions) hub.unsubscribe(id)
    this.subscriptions.clear()
    if (this.client.readyState === this.client.OPEN) this.client.close(code, reason)
  }

  private send (text: string): void {
    const { client } = this
    if (this.ended || client.readyState !== client.OPEN) return
    this.lastActive = Date.now()
    if (client.bufferedAmount > this.deps.pool.ws_send_buffer_bytes) { this.end(1013, 'the client fell behind: its send buffer is full'); return }
    client.send(text)
  }

  private received (data: Buffer): void {
    this.lastActive = Date.now()
    let parsed: unknown
    try {
      parsed = JSON.parse(data.toString('utf8'))
    } catch {
      this.send(errorText(null, -32700, 'Parse error'))
      return
    }
    this.track(this.answer(data, parsed), parsed)
  }

  /**
   * Counts a call in flight, reading the socket no further while MAX_CALLS are; its
   * answer goes back, or, when larger than ws_max_message_bytes, an error in its place.
   */
  private track (work: Promise<string | undefined>, parsed: unknown): void {
    if (++this.inFlight >= MAX_CALLS) this.client.pause()
    const limit = this.deps.pool.ws_max_message_bytes
    work.then((text) => {
      if (text === undefined) return
      const id = Array.isArray(parsed) ? null : (parsed as Call | null)?.id
      this.send(text.length > limit && Buffer.byteLength(text) > limit ? errorText(id, -32603, `the answer is larger than ws_max_message_bytes (${limit})`) : text)
    }, () => {}).finally(() => {
      if (this.inFlight-- === MAX_CALLS && !this.ended) this.client.resume()
    })
  }

  /** The answer to a message: one call or a batch. */
  private async answer (data: Buffer, parsed: unknown): Promise<string | undefined> {
    const { origin } = this.deps
    if (Array.isArray(parsed)) {
      if (parsed.length > MAX_BATCH_CALLS) return errorText(null, -32600, `Invalid Request: a batch of more than ${MAX_BATCH_CALLS} calls`)
      if (!parsed.some((call: Call) => SUBSCRIPTION_METHODS.has(call?.method as string))) return await callPool(this.deps.pipelines, origin, data.toString('utf8'), null)
      // Call by call, BATCH_CONCURRENCY at a time: a batch holding a subscription is not sent whole.
      const answers: Array<string | undefined> = []
      for (let i = 0; i < parsed.length; i += BATCH_CONCURRENCY) {
        answers.push(...await Promise.all(parsed.slice(i, i + BATCH_CONCURRENCY).map(async (call: Call) => await this.one(call, JSON.stringify(call)))))
      }
      const given = answers.filter((text) => text !== undefined)
      return given.length === 0 ? undefined : `[${given.join(',')}]`
    }
    return await this.one(parsed as Call, data.toString('utf8'))
  }

  /** One call's answer (undefined for a notification's). */
  private async one (call: Call, text: string): Promise<string | undefined> {
    if (typeof call !== 'object' || call === null || typeof call.method !== 'string') return errorText(call?.id, -32600, 'Invalid Request')
    if (call.method === 'eth_subscribe') return await this.subscribe(call)
    if (call.method === 'eth_unsubscribe') {
      const id = Array.isArray(call.params) ? call.params[0] : undefined
      const hub = typeof id === 'string' ? this.subscriptions.get(id) : undefined
      const done = hub !== undefined && hub.unsubscribe(id as string)
      if (done) this.subscriptions.delete(id as string)
      return JSON.stringify({ jsonrpc: '2.0', id: call.id ?? null, result: done })
    }
    const answer = await callPool(this.deps.pipelines, this.deps.origin, text, call.id)
    return call.id === undefined ? undefined : answer
  }

  private async subscribe (call: Call): Promise<string> {
    if (!Array.isArray(call.params) || typeof call.params[0] !== 'string') return errorText(call.id, -32602, 'eth_subscribe needs a subscription name')
    if (this.subscriptions.size + this.subscribing >= MAX_SUBSCRIPTIONS) return errorText(call.id, LIMIT_EXCEEDED, `a stream keeps at most ${MAX_SUBSCRIPTIONS} subscriptions`)
    this.subscribing++
    try {
      return await this.made(call as Call & { params: unknown[] })
    } finally {
      this.subscribing--
    }
  }

  private async made (call: Call & { params: unknown[] }): Promise<string> {
    const hub = this.deps.hub()
    const made = await hub.subscribe(call.params, this)
    if ('error' in made) return JSON.stringify({ jsonrpc: '2.0', id: call.id ?? null, error: made.error })
    if (this.ended) { hub.unsubscribe(made.id); return errorText(call.id, -32603, 'the stream closed') }
    this.subscriptions.set(made.id, hub)
    return JSON.stringify({ jsonrpc: '2.0', id: call.id ?? null, result: made.id })
  }
}
