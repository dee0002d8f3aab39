/**
 * The upstream requests one client batch may have open at once (issue 36 item 2):
 * MAX_OPEN_SENDS, whatever its calls are (an upstream batch counts one, a call sent
 * alone one), so that calls that never go in a list (notifications, null or repeated
 * ids, transactions, members taking single calls or refusing lists, a log split's
 * ranges, retries and hedges) make no more requests at once than a batch made before
 * lists came, while enough calls are on their way to fill lists (rpc-batch.ts). A send
 * takes a permit first (waiting its turn, in order) and gives it back when its
 * answer's body closes (read to its end, or let go) or the send fails. The wait
 * counts against the call's own bound: a call still waiting at its end gives up
 * without having been sent (a timeout that tells the member's health nothing: it
 * was never asked).
 */
import type { ProxyRequest } from './forward.js'
import { DEFAULT_TIMEOUT_MS, type AttemptControl, type SendingMember, type SendingPool, type SentUpstream, type UpstreamClient } from './upstream-client.js'

/** Upstream requests one client batch has open at once (before lists, its 16 calls on their way made 16). */
export const MAX_OPEN_SENDS = 16

/** A batch's call's control: its attempt's, and word of the moment it goes (its hedge delay counts from then: forwarding.ts). */
export interface BatchControl extends AttemptControl {
  onSent?: () => void
}

/** An attempt's outcome with no answer (`secrets`: none came, so none can be echoed). */
export const noAnswer = (error: Error, latencyMs: number, marks: { timedOut: boolean, cancelled?: boolean, unreached?: boolean, neutral?: true }): SentUpstream =>
  ({ error, latencyMs, secrets: [], ...marks })

/** The outcome of a call whose bound ran out before it was sent: unreached (it moves on), and no failure of the member's. */
export const neverSent = (latencyMs: number): SentUpstream =>
  noAnswer(new Error('The provider did not start its answer in time'), latencyMs, { timedOut: true, unreached: true, neutral: true })

/** The bound of a send to `member`: its own timeout, or less when the attempt says so. */
export function boundOf (member: Pick<SendingMember, 'timeout_ms'>, control: AttemptControl | undefined): number {
  const own = member.timeout_ms ?? DEFAULT_TIMEOUT_MS
  return control?.timeoutMs === undefined ? own : Math.max(1, Math.min(own, control.timeoutMs))
}

/** A permit (call it to give it back), or why the wait for one ended without it. */
type Permit = (() => void) | 'timeout' | 'cancelled'

/** One client batch's sends: at most MAX_OPEN_SENDS open at once. */
export class SendPermits {
  private open = 0
  private readonly queue: Array<() => void> = []

  constructor (private readonly max = MAX_OPEN_SENDS) {}

  /** A permit once one is free; `timeout` past `waitMs`, `cancelled` when the call `onCancel` is handed comes first. */
  async take (waitMs: number, onCancel?: (cancel: () => void) => void): Promise<Permit> {
    if (this.open < this.max) {
      this.open++
      return this.permit()
    }
    return await new Promise((resolve) => {
      const grant = (): void => {
        clearTimeout(timer)
        this.open++
        resolve(this.permit())
      }
      const end = (why: 'timeout' | 'cancelled'): void => {
        const at = this.queue.indexOf(grant)
        if (at === -1) return
        this.queue.splice(at, 1)
        clearTimeout(timer)
        resolve(why)
      }
      const timer = setTimeout(() => { end('timeout') }, waitMs)
      this.queue.push(grant)
      onCancel?.(() => { end('cancelled') })
    })
  }

  /**
   * Sends one call on its own when its turn comes, within its bound (the wait counts
   * against it). `onSent` is told when it goes.
   */
  async sendAlone (upstream: Pick<UpstreamClient, 'send'>, incoming: ProxyRequest, path: string, pool: SendingPool, member: SendingMember, control?: BatchControl): Promise<SentUpstream> {
    const bound = boundOf(member, control)
    const started = performance.now()
    const permit = await this.take(bound, control?.onCancel)
    const waited = Math.round(performance.now() - started)
    if (permit === 'timeout') return neverSent(waited)
    if (permit === 'cancelled') return noAnswer(new Error('The attempt was called off'), waited, { timedOut: false, cancelled: true })
    control?.onSent?.()
    const timeoutMs = Math.max(1, Math.ceil(bound - (performance.now() - started)))
    return heldUntilDone(await sending(permit, upstream.send(incoming, path, pool, member, { timeoutMs, onCancel: control?.onCancel })), permit)
  }

  private permit (): () => void {
    let given = false
    return () => {
      if (given) return
      given = true
      this.open--
      this.queue.shift()?.()
    }
  }
}

/** What `send` gives; the permit given back when it throws (a base URL that cannot be parsed). */
export async function sending (permit: () => void, send: Promise<SentUpstream>): Promise<SentUpstream> {
  try {
    return await send
  } catch (error) {
    permit()
    throw error
  }
}

/** `sent`, its permit given back when its answer's body closes (read, or let go), or at once when it has none. */
export function heldUntilDone (sent: SentUpstream, permit: () => void): SentUpstream {
  if (!('response' in sent) || sent.response.body.closed) permit()
  else sent.response.body.once('close', permit)
  return sent
}
