/**
 * The cache's second stage, coalescing: one request per key goes upstream (its
 * leader, which cache-fill.ts runs), and identical requests arriving meanwhile wait
 * for it and take what it shares: the stored answer (a HIT, when its Vary matches
 * theirs), or its failure, or the provider's failing answer with the retry budget
 * spent; an answer that was not stored sends each waiter upstream on its own, within
 * what is left of its deadline. A request waits no longer than its own deadline
 * (a leader's client too: the flight goes on for the others) nor than
 * MAX_COALESCED_WAIT_MS; a flight is called off only when every client waiting for
 * it has left, and a background refresh (a STALE served, cache-lookup.ts) never is.
 * A failure is replaced by an entry within its stale window (stale if error).
 */
import { Readable } from 'node:stream'
import { ageSeconds, varyMatches } from '../rules/cache-policy.js'
import { DEADLINE_HEADER } from '../rules/retry-policy.js'
import { fromEntry, within, type Ask, type CountCache, type Lead, type Led, type ServedAnswer } from './cache-answer.js'
import type { ProxyRequest } from './forward.js'
import type { ProxyService } from './proxy.service.js'

/**
 * One key's request in flight: the leader's outcome to come, and the clients still
 * waiting for it; it is called off (its signal) only when every one of them has
 * left, so one client leaving never fails the others. A background refresh has no
 * client and is never called off.
 */
interface Flight {
  readonly led: Promise<Led>
  readonly controller: AbortController
  interested: number
  readonly background: boolean
}

/** Longest a request waits for the leader of its key before going upstream itself (the leader's attempts are bounded by their own timeouts). */
const MAX_COALESCED_WAIT_MS = 120_000

interface CoalescingDeps {
  readonly proxy: Pick<ProxyService, 'forward'>
  /** Stale if error: the entry served in place of a failure (cache-lookup.ts). */
  readonly lookup: { staleInstead: (poolId: number, key: string, incoming: ProxyRequest) => Promise<ServedAnswer | undefined> }
  readonly lead: Lead
  readonly count: CountCache
  readonly now: () => number
  readonly warn: (error: unknown, message: string) => void
}

/** The coalescing stage: the requests in flight, one per key, in this process. */
export class Coalescing {
  /** `${poolId}:${key}` → the request in flight for that key. */
  private readonly inFlight = new Map<string, Flight>()

  constructor (private readonly deps: CoalescingDeps) {}

  /** The key's answer from upstream: the request in flight for it, waited for, or one led for this client (`label`: MISS, or BYPASS when it asked anew). */
  async answer (ask: Ask, label: 'MISS' | 'BYPASS'): Promise<ServedAnswer> {
    const running = this.inFlight.get(ask.id)
    return running !== undefined ? await this.follow(ask, running) : await this.leadFor(ask, label)
  }

  /** Refreshes a stale entry's key in the background, unless a request for it is in flight already. */
  refresh (ask: Ask): void {
    if (this.inFlight.has(ask.id)) return
    this.takeOff(ask.id, true, async (signal) => await this.deps.lead(ask, 'MISS', signal)).led
      .then(letGo, (error: unknown) => { this.deps.warn(error, 'cache: background refresh failed') })
  }

  /** Starts the flight of `id` (none is in flight); `start` leads it under the flight's signal. */
  private takeOff (id: string, background: boolean, start: (signal: AbortSignal) => Promise<Led>): Flight {
    const controller = new AbortController()
    const flight: Flight = { led: start(controller.signal), controller, interested: 0, background }
    this.inFlight.set(id, flight)
    const done = () => { if (this.inFlight.get(id) === flight) this.inFlight.delete(id) }
    flight.led.then(done, done)
    return flight
  }

  /** Waits for the request in flight for the same key, and takes its answer (or goes upstream alone). */
  private async follow (ask: Ask, running: Flight): Promise<ServedAnswer> {
    const { poolId, key, incoming } = ask
    const led = await board(running, incoming.signal, Math.min(MAX_COALESCED_WAIT_MS + ask.pool.max_wait_ms, leftOf(ask)))
    let served = led === undefined ? undefined : this.asWaiter(led, incoming)
    if (served !== undefined && failing(served)) served = await this.deps.lookup.staleInstead(poolId, key, incoming) ?? served
    if (served !== undefined) {
      this.deps.count(poolId, served.cache ?? 'HIT')
      return served
    }
    if (incoming.signal?.aborted === true) return { kind: 'unavailable', retryAfterS: null, cache: 'MISS' }
    if (leftOf(ask) < 1) {
      this.deps.count(poolId, 'MISS')
      return await this.overDeadline(ask)
    }
    // Not shareable, or waited too long: upstream on its own, within what is left of its deadline.
    const answer = await this.deps.proxy.forward(poolId, { ...incoming, headers: { ...incoming.headers, [DEADLINE_HEADER]: String(Math.max(1, Math.floor(leftOf(ask)))) } })
    this.deps.count(poolId, 'BYPASS')
    return { ...answer, cache: 'BYPASS' }
  }

  /** Leads the key's request upstream, for this client and whoever comes to wait for it. */
  private async leadFor (ask: Ask, label: 'MISS' | 'BYPASS'): Promise<ServedAnswer> {
    const { poolId, key, incoming } = ask
    const flight = this.takeOff(ask.id, false, async (signal) => await this.deps.lead(ask, label, signal))
    const led = await board(flight, incoming.signal, ask.deadline.shortened ? leftOf(ask) : Infinity)
    if (led === undefined && incoming.signal?.aborted !== true) {
      // Its own deadline passed first: the shared request goes on for the others, and to be stored.
      flight.led.then(letGo, () => {})
      this.deps.count(poolId, label)
      return await this.overDeadline(ask)
    }
    if (led === undefined) {
      // The client left: an answer too big to share, streaming for it alone, is let go when it comes.
      flight.led.then(letGo, () => {})
      return { kind: 'unavailable', retryAfterS: null, cache: label }
    }
    const { own } = led
    // Stale if error: every member failed or none is eligible, but an entry within its stale window is kept.
    const served = failing(own) ? await this.deps.lookup.staleInstead(poolId, key, incoming) ?? own : own
    if (served !== own) letGo(led)
    this.deps.count(poolId, served.cache ?? label)
    return served
  }

  /**
   * What a waiter gets from its leader's outcome: the stored answer when its Vary
   * matches the waiter's request, or the leader's failure (a MISS: it saved no call
   * that would have worked); undefined — go upstream alone — for an answer that was
   * not stored (private to its caller, or too big, or not to be kept).
   */
  private asWaiter (led: Led, incoming: ProxyRequest): ServedAnswer | undefined {
    const { shared } = led
    switch (shared.kind) {
      case 'stored':
        if (!varyMatches(shared.entry.vary, incoming.headers)) return undefined
        return { ...fromEntry(shared.entry, incoming.method, 0), cache: 'HIT', age: ageSeconds(shared.entry.storedAt, this.deps.now()) }
      case 'failed': return { ...shared.answer, cache: 'MISS' }
      case 'exhausted': return { ...shared.answer, body: incoming.method === 'HEAD' ? null : shared.answer.body, cache: 'MISS' }
      case 'alone': return undefined
    }
  }

  /** Past the request's deadline: a stale entry if one is within its window, else 504. */
  private async overDeadline (ask: Ask): Promise<ServedAnswer> {
    return await this.deps.lookup.staleInstead(ask.poolId, ask.key, ask.incoming) ?? { kind: 'deadline', deadlineMs: ask.deadline.ms, attempts: [], cache: 'MISS' }
  }
}

/** Waits for the flight as one more interested client (bounded by `limitMs`; undefined when it gave up or left). */
async function board (flight: Flight, signal: AbortSignal | undefined, limitMs: number): Promise<Led | undefined> {
  flight.interested++
  const leave = () => {
    flight.interested--
    if (flight.interested === 0 && !flight.background) flight.controller.abort()
  }
  signal?.addEventListener('abort', leave, { once: true })
  try {
    return await within(flight.led, limitMs, signal)
  } finally {
    signal?.removeEventListener('abort', leave)
  }
}

/** What is left of the request's own deadline. */
const leftOf = (ask: Ask): number => ask.deadline.ms - (performance.now() - ask.started)

/** True for an answer that stale-if-error may replace: a failure, or a provider's failing answer back with the retry budget spent. */
function failing (answer: ServedAnswer): boolean {
  return answer.kind !== 'answer' || ('retryBudget' in answer && answer.retryBudget !== undefined)
}

/** Lets go of a led answer nobody will read: its body still streaming from the provider is destroyed. */
function letGo (led: Led): void {
  if (led.own.kind === 'answer' && led.own.body instanceof Readable) led.own.body.on('error', () => {}).destroy()
}
