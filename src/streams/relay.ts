/**
 * An `http` pool's stream: client sockets relayed to one upstream socket, frame by
 * frame, text as text and binary as binary. A relay with one client of its own
 * (dedicated) has backpressure both ways: its upstream is paused while the client's
 * send buffer is past half of `ws_send_buffer_bytes`, the client while the
 * upstream's is. A shared relay (several clients of one path and subprotocol that
 * send nothing: issue 37 item 4) fans each upstream message out to all and cannot
 * pause for one: a client past `ws_send_buffer_bytes` is closed with 1013, the
 * others go on (while it has one client, it pauses as a dedicated one does). Each
 * relay passes on at most TURN_MESSAGES upstream messages per turn of the event loop. A shared relay's client that sends a message leaves it for a stream
 * of its own (`leave`), unless it is the only one: then the relay becomes its own.
 * When the upstream side closes, errors or misses its pong, the clients' sockets
 * stay open: another member is chosen (restore.ts), the kept messages are sent to it
 * again (`ws_replay`), then what was sent meanwhile, and the stream goes on. A stream
 * lost again soon after it moved waits longer each time before moving (so a member
 * that closes every stream it is given is not called in a loop), and is closed with
 * 1014 after MAX_QUICK_LOSSES such losses in a row.
 */
import type WebSocket from 'ws'
import { watchIdle, watchUpstream } from './liveness.js'
import { MAX_QUICK_LOSSES, NO_MEMBER_CLOSE, quickLossesAfter, restoreUpstream, type Restoring } from './restore.js'
import type { OpenStream, StreamRegistry } from './stream-registry.js'
import { keptForReplay, shownReplay, type Replay } from '../rules/stream-settings.js'
import type { StreamSettings } from './stream-settings.js'
import type { ClientAsk, StreamMember } from './upstream-connect.js'
import type { PickRuntime } from './upstream-pick.js'

export interface Frame { readonly data: Buffer, readonly binary: boolean }

/** Upstream messages a relay passes on in one turn of the event loop before it lets others run. */
const TURN_MESSAGES = 256

/** A client's place in the registry (taken before its upgrade was answered): the stream it ends, its release, what it asked. */
export interface Counted {
  readonly slot: OpenStream
  readonly uncount: () => void
  readonly ask: ClientAsk
}

/** Close codes an upstream ends a stream with that say nothing bad of the member. */
const NORMAL_CLOSES = new Set([1000, 1001])

/** What a relay is given. */
export interface RelayDeps {
  readonly registry: StreamRegistry
  readonly restoring: Omit<Restoring, 'ended'>
  readonly pool: StreamSettings
  readonly runtime: PickRuntime
  /** A shared relay: the clients that may still join it stop finding it (it is no longer shared). */
  readonly unshare?: () => void
  /** A shared relay's client that sent `frame` leaves for a stream of its own. */
  readonly leave?: (client: WebSocket, counted: Counted, frame: Frame) => void
}

interface Joined {
  readonly counted: Counted
  readonly onMessage: (data: Buffer, binary: boolean) => void
  readonly onClose: () => void
}

/** Relays its clients to the upstream it was opened with, until the last one leaves. */
export class Relay {
  private upstream: WebSocket | undefined
  private stopWatch = () => {}
  private readonly stopIdle: () => void
  private readonly rule: Replay
  private readonly opened = Date.now()
  private lastActive = Date.now()
  private attachedAt = Date.now()
  private quickLosses = 0
  private sent = 0
  private readonly clients = new Map<WebSocket, Joined>()
  private readonly replay: Frame[] = []
  private replayBytes = 0
  private waiting: Frame[] = []
  private waitingBytes = 0
  /** Frames a lost upstream never took, sent again after the replay. */
  private resend: Frame[] = []
  private shared: boolean
  private restoring = false
  private paused = false
  /** Upstream messages relayed in this turn of the event loop. */
  private turnMessages = 0
  private ended = false

  constructor (private readonly deps: RelayDeps, private member: StreamMember, socket: WebSocket) {
    this.rule = shownReplay(deps.pool.ws_replay)
    this.shared = deps.unshare !== undefined
    this.stopIdle = watchIdle(deps.pool.ws_idle_timeout_ms, () => this.lastActive, () => { this.end(1000, 'idle for ws_idle_timeout_ms') })
    this.attach(member, socket)
  }

  /** True while more clients may join (shared, not ended). */
  get joinable (): boolean { return this.shared && !this.ended }

  /** Adds a client, counted before it came (the first, or one joining a shared relay); `said`: what it sent before it came here. */
  join (client: WebSocket, counted: Counted, said: readonly Frame[] = []): void {
    counted.slot.end = (code, reason) => { this.drop(client, code, reason) }
    const joined: Joined = {
      counted,
      onMessage: (data, binary) => { this.fromClient(client, { data, binary }) },
      onClose: () => { this.drop(client, 1000, '') }
    }
    this.clients.set(client, joined)
    client.on('message', joined.onMessage)
    client.on('close', joined.onClose)
    client.on('error', () => {})
    for (const frame of said) this.fromClient(client, frame)
  }

  /** Ends the stream for every client: `code` and `reason` to each still open, the upstream closed, the member let go. */
  end (code: number, reason: string): void {
    if (this.ended) return
    this.ended = true
    this.deps.unshare?.()
    this.stopIdle()
    this.detach()
    for (const client of [...this.clients.keys()]) this.drop(client, code, reason)
  }

  /** One client leaves (closed with `code` when still open); the last one ends the stream. */
  private drop (client: WebSocket, code: number, reason: string): void {
    const joined = this.unjoin(client)
    if (joined === undefined) return
    joined.counted.uncount()
    if (client.readyState === client.OPEN) client.close(code, reason)
    else if (client.readyState === client.CONNECTING) client.terminate()
    if (this.clients.size === 0) this.end(1000, '')
  }

  /** Takes a client off this relay (its own listeners only), resumed if it was paused here. */
  private unjoin (client: WebSocket): Joined | undefined {
    const joined = this.clients.get(client)
    if (joined === undefined) return undefined
    this.clients.delete(client)
    client.off('message', joined.onMessage)
    client.off('close', joined.onClose)
    if (client.isPaused) client.resume()
    return joined
  }

  private attach (member: StreamMember, socket: WebSocket): void {
    const { poolId } = this.deps.restoring
    this.member = member
    this.upstream = socket
    this.attachedAt = Date.now()
    this.deps.registry.upstream(poolId, member.provider_id, 1)
    socket.on('message', (data: Buffer, binary) => { this.toClients({ data, binary }) })
    socket.on('close', (code) => { if (this.upstream === socket) this.lost(NORMAL_CLOSES.has(code) ? undefined : `closed with ${code}`) })
    socket.on('error', (error: Error & { code?: string }) => {
      if (this.upstream === socket && error.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') this.end(1009, 'an upstream message is larger than ws_max_message_bytes')
    })
    this.stopWatch = watchUpstream(socket, this.deps.pool.ws_ping_interval_ms, (why) => { if (this.upstream === socket) { socket.terminate(); this.lost(why) } })
  }

  /** Closes the upstream socket (if any) and lets its member go. */
  private detach (): void {
    const socket = this.upstream
    if (socket === undefined) return
    this.upstream = undefined
    this.stopWatch()
    if (socket.readyState === socket.OPEN) socket.close(1000)
    else socket.terminate()
    this.deps.registry.upstream(this.deps.restoring.poolId, this.member.provider_id, -1)
    this.deps.runtime.release(this.member.id)
  }

  private fromClient (client: WebSocket, frame: Frame): void {
    if (this.shared) {
      if (this.clients.size > 1 && this.deps.leave !== undefined) {
        const joined = this.unjoin(client) as Joined
        this.deps.leave(client, joined.counted, frame)
        return
      }
      this.shared = false
      this.deps.unshare?.()
    }
    const now = this.lastActive = Date.now()
    // Kept for replays as ws_replay says, within ws_send_buffer_bytes in all (a client cannot grow it without bound).
    const kept = keptForReplay(this.rule, this.sent++, now - this.opened) && this.replayBytes + frame.data.length <= this.deps.pool.ws_send_buffer_bytes
    if (kept) {
      this.replay.push(frame)
      this.replayBytes += frame.data.length
    }
    const upstream = this.upstream
    if (upstream !== undefined && !this.restoring) { this.send(upstream, client, frame, kept); return }
    if (kept) return
    this.waitingBytes += frame.data.length
    if (this.waitingBytes > this.deps.pool.ws_send_buffer_bytes) { this.end(1013, 'too much sent while the stream was being restored'); return }
    this.waiting.push(frame)
    // Past half the bound, the client is read no further until the stream has moved.
    if (this.waitingBytes > this.deps.pool.ws_send_buffer_bytes / 2) client.pause()
  }

  /**
   * Sends a client's frame upstream. One the upstream never took (its socket died under
   * it) goes again to the member that takes the stream over, unless the replay sends it
   * anyway (`kept`). A client paused for a slow upstream is read again once the
   * upstream took everything, or failed.
   */
  private send (upstream: WebSocket, client: WebSocket | undefined, frame: Frame, kept: boolean): void {
    upstream.send(frame.data, { binary: frame.binary }, (error) => {
      if (error != null) {
        if (client?.isPaused === true) client.resume()
        if (kept || this.ended) return
        if (this.restoring || this.upstream === upstream || this.upstream === undefined) this.resend.push(frame)
        else this.send(this.upstream, undefined, frame, false)
        return
      }
      this.deps.registry.toUpstream(this.deps.restoring.poolId)
      if (client?.isPaused === true && upstream.bufferedAmount === 0) client.resume()
    })
    if (client !== undefined && upstream.bufferedAmount > this.deps.pool.ws_send_buffer_bytes / 2) client.pause()
  }

  private toClients (frame: Frame): void {
    this.lastActive = Date.now()
    const limit = this.deps.pool.ws_send_buffer_bytes
    // One client (dedicated, or alone on a shared relay) slows its provider down; several cannot, for one.
    const alone = this.clients.size === 1
    let count = 0
    for (const client of this.clients.keys()) {
      if (client.readyState !== client.OPEN) continue
      if (client.bufferedAmount > limit) { this.drop(client, 1013, 'the client fell behind: its send buffer is full'); continue }
      client.send(frame.data, { binary: frame.binary }, alone ? this.drained : undefined)
      count++
      if (alone && !this.paused && client.bufferedAmount > limit / 2) {
        this.paused = true
        this.upstream?.pause()
      }
    }
    this.deps.registry.toClients(this.deps.restoring.poolId, count)
    // A fast provider does not hold the event loop: after TURN_MESSAGES in one turn, its socket waits for the next.
    if (++this.turnMessages === TURN_MESSAGES) {
      this.upstream?.pause()
      setImmediate(this.nextTurn)
    }
  }

  private readonly nextTurn = (): void => {
    this.turnMessages = 0
    if (!this.paused) this.upstream?.resume()
  }

  private readonly drained = (): void => {
    if (!this.paused) return
    const [client] = this.clients.keys()
    if (client === undefined || client.bufferedAmount <= this.deps.pool.ws_send_buffer_bytes / 4) {
      this.paused = false
      if (this.turnMessages < TURN_MESSAGES) this.upstream?.resume()
    }
  }

  /** The upstream side is gone (`why`: a failure of the member's, undefined for a normal close): restore the stream on another member. */
  private lost (why: string | undefined): void {
    if (this.ended || this.restoring) return
    const { poolId } = this.deps.restoring
    const member = this.member
    this.quickLosses = quickLossesAfter(this.quickLosses, this.attachedAt)
    if (this.quickLosses >= MAX_QUICK_LOSSES) { this.end(NO_MEMBER_CLOSE, 'every member the stream moved to closed it at once'); return }
    this.restoring = true
    this.paused = false
    // Clients paused for the lost upstream are read again: what they send waits for the next member.
    for (const client of this.clients.keys()) if (client.isPaused) client.resume()
    if (why !== undefined) this.deps.runtime.report(poolId, member.provider_id, { success: false, error: `stream: ${why}` })
    this.detach()
    this.deps.registry.failedOver(poolId)
    restoreUpstream({ ...this.deps.restoring, ended: () => this.ended }, member, undefined, this.quickLosses).then((next) => {
      if (next === undefined) { this.end(NO_MEMBER_CLOSE, 'no member of the pool could take the stream over'); return }
      if (this.ended) {
        next.socket.close(1000)
        this.deps.runtime.release(next.member.id)
        return
      }
      this.attach(next.member, next.socket)
      this.restoring = false
      for (const frame of this.replay) this.send(next.socket, undefined, frame, true)
      const waiting = [...this.resend, ...this.waiting]
      this.resend = []
      this.waiting = []
      this.waitingBytes = 0
      for (const frame of waiting) this.send(next.socket, undefined, frame, false)
      for (const client of this.clients.keys()) if (client.isPaused) client.resume()
    }, () => { this.end(1011, 'the stream could not be restored') })
  }
}
