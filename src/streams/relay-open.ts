/**
 * Opening an `http` pool's streams (relay.ts): a client joins the shared relay of its
 * pool, path and subprotocols when there is one it may share (its headers allow it,
 * the pool does not forward credentials), waiting for one being opened by another
 * client rather than opening a second; otherwise a member is picked and a relay made
 * (shared under its key when the client may share). A client that speaks on a
 * shared relay leaves it for a relay of its own, with what it said meanwhile.
 */
import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import type WebSocket from 'ws'
import { refuse, shareable } from './handshake.js'
import { Relay, type Counted, type Frame } from './relay.js'
import { NO_MEMBER_CLOSE } from './restore.js'
import type { StreamRegistry } from './stream-registry.js'
import type { StreamSettings } from './stream-settings.js'
import type { ClientAsk, StreamMember } from './upstream-connect.js'
import { pickUpstream, type PickRuntime } from './upstream-pick.js'

/** A pool's stream as its relays are made: what was asked, on which pool. */
export interface Stream { poolId: number, pool: StreamSettings, ask: ClientAsk, options: { forwardClientAuth: boolean, maxPayload: number } }

/** Completes a client's handshake with `protocol`; undefined when the client left meanwhile. */
export type Accept = (request: IncomingMessage, socket: Duplex, head: Buffer, pool: StreamSettings, protocol: string) => Promise<WebSocket | undefined>

interface Deps {
  runtime: PickRuntime
  registry: StreamRegistry
  random: () => number
  accept: Accept
}

/** What a leaving client may say while its own relay is being opened. */
const LEAVING_BYTES = 1024 * 1024

/** Builds the opening of one app's relays. */
export function createRelays ({ runtime, registry, random, accept }: Deps) {
  // Shared relays clients may still join, and shared streams being opened by their first client.
  const shared = new Map<string, { relay: Relay, protocol: string }>()
  const opening = new Map<string, Promise<void>>()

  /** A relay over an open upstream socket; shared under `key` (while it stays so) when given one. */
  function relayOf (stream: Stream, member: StreamMember, upstream: WebSocket, key: string | undefined, protocol: string): Relay {
    const restoring = { runtime, poolId: stream.poolId, ask: stream.ask, options: stream.options, random }
    const base = { registry, restoring, pool: stream.pool, runtime }
    if (key === undefined) return new Relay(base, member, upstream)
    const relay: Relay = new Relay({
      ...base,
      unshare: () => { if (shared.get(key)?.relay === relay) shared.delete(key) },
      leave: (client, counted, frame) => { ownStream(stream, client, counted, frame) }
    }, member, upstream)
    shared.set(key, { relay, protocol })
    return relay
  }

  /** A client that spoke on a shared stream: a relay of its own, starting with what it said (meanwhile too). */
  function ownStream (stream: Stream, client: WebSocket, counted: Counted, frame: Frame): void {
    const said: Frame[] = [frame]
    let bytes = frame.data.length
    const collect = (data: Buffer, binary: boolean) => {
      bytes += data.length
      if (bytes > LEAVING_BYTES) { client.close(1013, 'too much sent while the stream was being opened'); return }
      said.push({ data, binary })
    }
    const gone = () => { counted.uncount() }
    client.on('message', collect)
    client.once('close', gone)
    const done = () => { client.off('message', collect); client.off('close', gone) }
    // Its own connection carries its own headers (the shared one carried none), with the subprotocol agreed.
    pickUpstream(runtime, stream.poolId, { ...counted.ask, protocols: stream.ask.protocols }, stream.options).then((picked) => {
      done()
      if (picked.kind !== 'open') { counted.uncount(); client.close(NO_MEMBER_CLOSE, 'no member of the pool could take the stream'); return }
      if (client.readyState !== client.OPEN) { counted.uncount(); picked.socket.close(1000); runtime.release(picked.member.id); return }
      relayOf(stream, picked.member, picked.socket, undefined, '').join(client, counted, said)
    }, () => { done(); counted.uncount(); client.close(1011, 'the stream could not be opened') })
  }

  /** Picks a member for a new relay and opens it; the upgrade is answered with what came of it. False: the stream did not open. */
  async function openRelay (request: IncomingMessage, socket: Duplex, head: Buffer, stream: Stream, key: string | undefined, id: string, counted: Counted): Promise<boolean> {
    const { poolId, pool, ask, options } = stream
    const upstreamAsk = key === undefined ? ask : { ...ask, headers: {} }
    const picked = await pickUpstream(runtime, poolId, upstreamAsk, options)
    if (picked.kind === 'unknown_pool') { refuse(socket, id, 404, { detail: `Pool ${poolId} not found` }); return false }
    if (picked.kind === 'none') {
      if (picked.attempts.length === 0) refuse(socket, id, 503, { detail: `No available providers in pool ${poolId}` }, picked.retryAfterS === null ? {} : { 'retry-after': String(picked.retryAfterS) })
      else refuse(socket, id, 502, { detail: `All providers failed for pool ${poolId}`, attempts: picked.attempts, refusals: picked.refusals })
      return false
    }
    const protocol = picked.socket.protocol
    const client = await accept(request, socket, head, pool, protocol)
    if (client === undefined) {
      picked.socket.close(1000)
      runtime.release(picked.member.id)
      return false
    }
    const agreed = { ...stream, ask: { ...ask, protocols: protocol === '' ? [] : [protocol] } }
    relayOf(agreed, picked.member, picked.socket, key, protocol).join(client, counted)
    return true
  }

  return {
    /** Opens (or joins) the stream a client asked of an `http` pool; false when it did not open (the upgrade was answered). */
    async open (request: IncomingMessage, socket: Duplex, head: Buffer, stream: Stream, id: string, counted: Counted): Promise<boolean> {
      const key = stream.options.forwardClientAuth || !shareable(request.headers) ? undefined : `${stream.poolId} ${stream.ask.path} ${stream.ask.protocols.join(',')}`
      if (key === undefined) return await openRelay(request, socket, head, stream, undefined, id, counted)
      // Another client of the same stream is opening it: wait for that, then join it.
      while (opening.has(key)) await opening.get(key)
      const joining = shared.get(key)
      if (joining !== undefined && joining.relay.joinable) {
        const client = await accept(request, socket, head, stream.pool, joining.protocol)
        if (client === undefined) return false
        if (!joining.relay.joinable) { client.close(NO_MEMBER_CLOSE, 'the stream ended as it was joined'); counted.uncount(); return true }
        joining.relay.join(client, counted)
        return true
      }
      let opened = () => {}
      opening.set(key, new Promise<void>((resolve) => { opened = resolve }))
      try {
        return await openRelay(request, socket, head, stream, key, id, counted)
      } finally {
        opening.delete(key)
        opened()
      }
    }
  }
}

export type Relays = ReturnType<typeof createRelays>
