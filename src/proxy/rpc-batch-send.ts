/**
 * One upstream JSON-RPC batch (issue 36 item 2): the calls of a client batch that
 * rpc-batch-group.ts gathered for one member, sent to it as one list when the batch's
 * turn to send comes (rpc-batch-permits.ts), each call then handed its own outcome as
 * if it had been sent alone (rpc-batch-answer.ts says what the list's answer gives
 * each), for the attempt loop to judge (rpc-answer.ts) and account (one call, one
 * attempt, one outcome). A failure of the list as a whole (its send, a 5xx, an answer
 * that is no list of answers) reaches health once: the first call still waiting gets
 * it as it is, the others marked `neutral` (attempt.ts), so one blip is one failure.
 * When the answer says the calls must be sent again: a 413 sends them as two lists of
 * half of them (down to single calls); a refusal sends each alone, and is remembered
 * for the path (rpc-batch-refusals.ts: single calls from then on) and logged once only
 * when one of them is then taken (the list was refused, not the calls); an answer too
 * big to hold sends alone again only the calls that may be repeated (the provider ran
 * them all): any other fails with an error of its own (the batch answers it -32603,
 * and health hears nothing).
 *
 * Each call keeps its own bound: its timer runs from the moment it joined, and cuts
 * it alone (a timeout) when the list's answer has not started by then, without a
 * failure of the member's when the list never went; the list is sent with the longest
 * bound left. A call called off (a hedge that won, the request ending) is let go
 * alone; a list is called off when every call of it is.
 */import { idKeyOf } from '../rules/jsonrpc-batch.js'
import { discard } from './attempt-steps.js'
import { requestCopy, type ProxyRequest } from './forward.js'
import { outcomeOfList, type ListOutcome } from './rpc-batch-answer.js'
import { boundOf, heldUntilDone, neverSent, noAnswer, sending, type BatchControl, type SendPermits } from './rpc-batch-permits.js'
import { pathOf, type BatchingProvider, type BatchRefusals } from './rpc-batch-refusals.js'
import type { SendingMember, SendingPool, SentUpstream, UpstreamClient } from './upstream-client.js'

/** What sending a group needs of the proxy: its upstream client and the refusals it learned. */
export interface BatchVia {
  readonly upstream: Pick<UpstreamClient, 'send'>
  readonly batchRefusals: BatchRefusals
}

/** The member a group goes to: what the upstream client and the refusals read of it. */
export type GroupMember = SendingMember & BatchingProvider & { readonly id: number, readonly provider_name: string | null }

/** One call waiting in the group for its answer. */
class Waiting {
  settled = false
  /** Calls off the call's own send, once it is resent alone. */
  cancelAlone: (() => void) | undefined
  timer: NodeJS.Timeout | undefined
  readonly joinedAt = performance.now()

  constructor (
    readonly incoming: ProxyRequest,
    readonly boundMs: number,
    readonly id: string | number | null,
    readonly control: BatchControl | undefined,
    private readonly resolve: (sent: SentUpstream) => void,
    private readonly reject: (error: unknown) => void
  ) {}

  /** What is left of its bound. */
  leftMs (): number { return Math.max(1, Math.ceil(this.boundMs - (performance.now() - this.joinedAt))) }
  elapsedMs (): number { return Math.round(performance.now() - this.joinedAt) }

  settle (sent: SentUpstream): void {
    if (this.settled) { discard(sent); return }
    this.settled = true
    clearTimeout(this.timer)
    this.resolve(sent)
  }

  fail (error: unknown): void {
    if (this.settled) return
    this.settled = true
    clearTimeout(this.timer)
    this.reject(error)
  }
}

/** A list on its way whose answer has not started: called off when every call of it is settled. */
interface ListInFlight {
  readonly calls: readonly Waiting[]
  cancel?: () => void
}

const OPEN = Buffer.from('[')
const COMMA = Buffer.from(',')
const CLOSE = Buffer.from(']')
const EMPTY = Buffer.alloc(0)

const isSuccess = (sent: SentUpstream): boolean => 'response' in sent && sent.response.statusCode >= 200 && sent.response.statusCode < 300

/** The calls of one client batch going to one member as one upstream batch. */
export class UpstreamGroup {
  private readonly calls: Waiting[] = []
  private readonly ids = new Set<string>()
  /** A list of the group went out (a call timing out before is unreached, and no failure of the member's). */
  private sent = false
  /** A failure of the list's own (not one call's) was handed to a call: the others get it neutral (health hears of it once). */
  private told = false
  private readonly lists = new Set<ListInFlight>()

  constructor (
    private readonly via: BatchVia,
    private readonly path: string,
    private readonly pool: SendingPool,
    private readonly member: GroupMember,
    private readonly permits: SendPermits
  ) {}

  get size (): number { return this.calls.length }

  /** True when a call with this id is in the group already (its answer could not be told apart). */
  has (id: string | number | null): boolean { return this.ids.has(idKeyOf(id)) }

  /** Adds a call (its id not in the group: `has`); answers what its send gave, as upstream-client.ts `send` would. */
  add (incoming: ProxyRequest, id: string | number | null, control: BatchControl | undefined): Promise<SentUpstream> {
    const bound = boundOf(this.member, control)
    return new Promise((resolve, reject) => {
      const call = new Waiting(incoming, bound, id, control, resolve, reject)
      this.calls.push(call)
      this.ids.add(idKeyOf(id))
      call.timer = setTimeout(() => {
        call.settle(this.sent ? this.listFailure(noAnswer(new Error('The provider did not start its answer in time'), call.elapsedMs(), { timedOut: true })) : neverSent(call.elapsedMs()))
        this.letGo()
      }, bound)
      control?.onCancel?.(() => {
        if (call.cancelAlone !== undefined) { call.cancelAlone(); return }
        call.settle(noAnswer(new Error('The attempt was called off'), call.elapsedMs(), { timedOut: false, cancelled: true }))
        this.letGo()
      })
    })
  }

  /** Sends the group when its turn among the batch's sends comes: its calls still waiting, as one list (one call alone as it is). */
  send (): void {
    const live = this.calls.filter((c) => !c.settled)
    if (live.length === 0) return
    const going = live.length === 1 ? this.eachAlone(live) : this.sendList(live)
    going.catch((error: unknown) => { for (const call of live) call.fail(error) })
  }

  /** The lists whose calls are all settled (timed out, called off) before their answer started are called off. */
  private letGo (): void {
    for (const list of this.lists) if (list.calls.every((c) => c.settled)) list.cancel?.()
  }

  /** A failure of the whole list as handed to one of its calls: as it is the first time, neutral after. */
  private listFailure (sent: SentUpstream): SentUpstream {
    if (!this.told) {
      this.told = true
      return sent
    }
    return { ...sent, neutral: true }
  }

  private async sendList (calls: readonly Waiting[]): Promise<void> {
    // Each call's own timer is running: when every one has run out, so has the wait.
    const permit = await this.permits.take(Math.max(...calls.map((c) => c.leftMs())))
    const live = calls.filter((c) => !c.settled)
    if (typeof permit !== 'function' || live.length === 0) {
      if (typeof permit === 'function') permit()
      for (const call of live) call.settle(neverSent(call.elapsedMs()))
      return
    }
    this.sent = true
    for (const call of live) call.control?.onSent?.()
    // Each call as the client's batch wrote it (its own id: the answer is cut by it).
    const body = Buffer.concat([...live.flatMap((call, i) => [i === 0 ? OPEN : COMMA, call.incoming.body ?? EMPTY]), CLOSE])
    const list: ProxyRequest = { ...requestCopy(live[0]?.incoming as ProxyRequest), body, rpc: undefined, upstreamBatch: undefined }
    const inFlight: ListInFlight = { calls: live }
    this.lists.add(inFlight)
    const control = { timeoutMs: Math.max(...live.map((c) => c.leftMs())), onCancel: (cancel: () => void) => { inFlight.cancel = cancel } }
    const sent = heldUntilDone(await sending(permit, this.via.upstream.send(list, this.path, this.pool, this.member, control)).finally(() => { this.lists.delete(inFlight) }), permit)
    // The answer has started (or the send failed): the calls' own bounds no longer cut it.
    for (const call of live) clearTimeout(call.timer)
    await this.follow(live, await outcomeOfList(sent, live.map((c) => c.id)))
  }

  /** What the list's answer says, done: each call settled, or the calls sent again (halves, one by one, or only those that may be repeated). */
  private async follow (live: readonly Waiting[], outcome: ListOutcome): Promise<void> {
    if ('each' in outcome) {
      for (const [i, call] of live.entries()) if (!call.settled) call.settle(outcome.shared === true ? this.listFailure(outcome.each[i] as SentUpstream) : outcome.each[i] as SentUpstream)
      return
    }
    if (outcome.alone === 'halve') {
      const half = Math.ceil(live.length / 2)
      await Promise.all([live.slice(0, half), live.slice(half)].map(async (part) => { await (part.length === 1 ? this.eachAlone(part) : this.sendList(part)) }))
      return
    }
    if (outcome.alone === 'too_big') {
      // The provider answered: it ran the calls. Only those that may be repeated are sent again.
      const message = `The provider answered this call in an upstream batch ${outcome.why}; the call may not be repeated, so it was not sent again: send it on its own`
      for (const call of live) if (call.incoming.rpc?.repeatable !== true) call.fail(new Error(message))
      await this.eachAlone(live)
      return
    }
    // Refused: the calls go one by one; the refusal is remembered when they are taken so (the list was refused, not the calls).
    if (await this.eachAlone(live)) this.learnRefusal(live, outcome.why)
  }

  /** The provider refused the batch: remembered (for this path), and logged the first time. */
  private learnRefusal (live: readonly Waiting[], why: string): void {
    const { member } = this
    if (!this.via.batchRefusals.learn(member, this.path)) return
    const log = live[0]?.incoming.log
    const fields = { providerId: member.provider_id, provider: member.provider_name, path: pathOf(this.path), why }
    const message = 'the provider refused an upstream batch: its calls are sent one by one from now on'
    if (log?.warn !== undefined) log.warn(fields, message)
    else log?.info(fields, message)
  }

  /** Each call still waiting sent on its own, within what is left of its bound; true when any was answered with a 2xx. */
  private async eachAlone (calls: readonly Waiting[]): Promise<boolean> {
    const sent = await Promise.all(calls.filter((c) => !c.settled).map(async (call) => {
      clearTimeout(call.timer)
      const control: BatchControl = { timeoutMs: call.leftMs(), onCancel: (cancel) => { call.cancelAlone = cancel }, onSent: call.control?.onSent }
      const one = await this.permits.sendAlone(this.via.upstream, call.incoming, this.path, this.pool, this.member, control)
      const taken = isSuccess(one)
      call.settle(one)
      return taken
    }))
    return sent.includes(true)
  }
}
