/**
 * One upstream JSON-RPC batch (issue 36 item 2): the calls of a client batch that
 * rpc-batch-group.ts gathered for one member, sent to it as one list, each call then
 * handed its own outcome as if it had been sent alone (rpc-batch-answer.ts says what
 * the list's answer gives each), for the attempt loop to judge (rpc-answer.ts) and
 * account (one call, one attempt, one outcome). When the answer says the calls must
 * go one by one (the provider refused the batch, or its answer is too big to hold),
 * each is resent alone to the same member within what is left of its bound; a refusal
 * is remembered (rpc-batch-refusals.ts: single calls from then on) and logged once.
 *
 * Each call keeps its own bound: its timer runs from the moment it joined, and cuts
 * it alone (a timeout) when the list's answer has not started by then; the list is
 * sent with the longest bound left. A call called off (a hedge that won, the request
 * ending) is let go alone; the list is called off when every call is.
 */
import { idKeyOf } from '../rules/jsonrpc-batch.js'
import { requestCopy, type ProxyRequest } from './forward.js'
import { outcomeOfList } from './rpc-batch-answer.js'
import type { BatchingProvider, BatchRefusals } from './rpc-batch-refusals.js'
import { DEFAULT_TIMEOUT_MS, type AttemptControl, type SendingMember, type SendingPool, type SentUpstream, type UpstreamClient } from './upstream-client.js'

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
    private readonly resolve: (sent: SentUpstream) => void,
    private readonly reject: (error: unknown) => void
  ) {}

  /** What is left of its bound. */
  leftMs (): number { return Math.max(1, Math.ceil(this.boundMs - (performance.now() - this.joinedAt))) }
  elapsedMs (): number { return Math.round(performance.now() - this.joinedAt) }

  settle (sent: SentUpstream): void {
    if (this.settled) return
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

const OPEN = Buffer.from('[')
const COMMA = Buffer.from(',')
const CLOSE = Buffer.from(']')
const EMPTY = Buffer.alloc(0)

/** An attempt's outcome with no answer (`secrets`: none came, so none can be echoed). */
const noAnswer = (error: Error, latencyMs: number, marks: { timedOut: boolean, cancelled?: boolean, unreached?: boolean }): SentUpstream =>
  ({ error, latencyMs, secrets: [], ...marks })

/** The calls of one client batch going to one member as one upstream batch. */
export class UpstreamGroup {
  private readonly calls: Waiting[] = []
  private readonly ids = new Set<string>()
  private sent = false
  private answered = false
  private cancelList: (() => void) | undefined

  constructor (
    private readonly via: BatchVia,
    private readonly path: string,
    private readonly pool: SendingPool,
    private readonly member: GroupMember
  ) {}

  get size (): number { return this.calls.length }

  /** True when a call with this id is in the group already (its answer could not be told apart). */
  has (id: string | number | null): boolean { return this.ids.has(idKeyOf(id)) }

  /** Adds a call (its id not in the group: `has`); answers what its send gave, as upstream-client.ts `send` would. */
  add (incoming: ProxyRequest, id: string | number | null, control: AttemptControl | undefined): Promise<SentUpstream> {
    const own = this.member.timeout_ms ?? DEFAULT_TIMEOUT_MS
    const bound = control?.timeoutMs === undefined ? own : Math.max(1, Math.min(own, control.timeoutMs))
    return new Promise((resolve, reject) => {
      const call = new Waiting(incoming, bound, id, resolve, reject)
      this.calls.push(call)
      this.ids.add(idKeyOf(id))
      call.timer = setTimeout(() => {
        call.settle(noAnswer(new Error('The provider did not start its answer in time'), call.elapsedMs(), { timedOut: true, unreached: !this.sent }))
        this.letGoIfNoneLeft()
      }, bound)
      control?.onCancel?.(() => {
        if (call.cancelAlone !== undefined) { call.cancelAlone(); return }
        call.settle(noAnswer(new Error('The attempt was called off'), call.elapsedMs(), { timedOut: false, cancelled: true }))
        this.letGoIfNoneLeft()
      })
    })
  }

  /** Sends the group: its calls still waiting, as one list (one call alone as it is). */
  send (): void {
    const live = this.calls.filter((c) => !c.settled)
    this.sent = true
    if (live.length === 0) return
    const sending = live.length === 1 ? this.eachAlone(live) : this.sendList(live)
    sending.catch((error: unknown) => { for (const call of live) call.fail(error) })
  }

  /** Every call settled before the list's answer started: the list is called off. */
  private letGoIfNoneLeft (): void {
    if (this.sent && !this.answered && this.calls.every((c) => c.settled)) this.cancelList?.()
  }

  private async sendList (live: Waiting[]): Promise<void> {
    // Each call as the client's batch wrote it (its own id: the answer is cut by it).
    const body = Buffer.concat([...live.flatMap((call, i) => [i === 0 ? OPEN : COMMA, call.incoming.body ?? EMPTY]), CLOSE])
    const list: ProxyRequest = { ...requestCopy(live[0]?.incoming as ProxyRequest), body, rpc: undefined, upstreamBatch: undefined }
    const timeoutMs = Math.max(...live.map((c) => c.leftMs()))
    const sent = await this.via.upstream.send(list, this.path, this.pool, this.member, { timeoutMs, onCancel: (cancel) => { this.cancelList = cancel } })
    this.answered = true
    // The answer has started (or the send failed): the calls' own bounds no longer cut it.
    for (const call of live) clearTimeout(call.timer)
    const outcome = await outcomeOfList(sent, live.map((c) => c.id))
    if ('each' in outcome) {
      for (const [i, call] of live.entries()) call.settle(outcome.each[i] as SentUpstream)
      return
    }
    if (outcome.alone === 'refused') this.learnRefusal(live, outcome.why)
    await this.eachAlone(live)
  }

  /** The provider refused the batch: remembered, and logged the first time. */
  private learnRefusal (live: readonly Waiting[], why: string): void {
    const { member } = this
    if (!this.via.batchRefusals.learn(member)) return
    const log = live[0]?.incoming.log
    const fields = { providerId: member.provider_id, provider: member.provider_name, why }
    const message = 'the provider refused an upstream batch: its calls are sent one by one from now on'
    if (log?.warn !== undefined) log.warn(fields, message)
    else log?.info(fields, message)
  }

  /** Each call still waiting sent on its own, within what is left of its bound. */
  private async eachAlone (live: readonly Waiting[]): Promise<void> {
    await Promise.all(live.filter((c) => !c.settled).map(async (call) => {
      clearTimeout(call.timer)
      const sent = await this.via.upstream.send(call.incoming, this.path, this.pool, this.member, { timeoutMs: call.leftMs(), onCancel: (cancel) => { call.cancelAlone = cancel } })
      if (call.settled) { if ('response' in sent) sent.response.body.on('error', () => {}).destroy() } else call.settle(sent)
    }))
  }
}
