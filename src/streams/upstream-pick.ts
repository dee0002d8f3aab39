/**
 * Choosing a member for a stream and opening its upstream socket: the pool's
 * strategy in memory (runtime/choosing.ts, the same choice a proxied request gets,
 * a quota's use taken once for the connection), then the handshake
 * (upstream-connect.ts). A refused upgrade or a connection that failed is the
 * member's failure for health, as a GET's would be, and the next member is tried;
 * once one has failed, every choice after it is a failover in the pool's history
 * with reason `stream_failover`. The chosen member stays counted in flight
 * (least_outstanding) until the stream lets it go (`runtime.release`).
 */
import type WebSocket from 'ws'
import type { FailedAttempt, ProxyRefusal } from '../runtime/pool-runtime.js'
import type { PoolRuntime } from '../runtime/pool-runtime.js'
import { connectUpstream, type ClientAsk, type StreamMember } from './upstream-connect.js'

/** The history reason of a stream moved to another member. */
export const STREAM_FAILOVER = 'stream_failover'

/** One failed try, as a 502's `attempts` lists it. */
export interface StreamAttempt {
  readonly provider_id: number
  readonly provider_name: string | null
  readonly status_code: number | null
  readonly error: string | null
}

/** How a pick ended. */
export type Picked =
  | { readonly kind: 'open', readonly member: StreamMember, readonly socket: WebSocket }
  | { readonly kind: 'none', readonly retryAfterS: number | null, readonly attempts: readonly StreamAttempt[], readonly refusals: readonly ProxyRefusal[] }
  | { readonly kind: 'unknown_pool' }

export type PickRuntime = Pick<PoolRuntime, 'choose' | 'report' | 'release'>

/** At most this many members are tried for one pick. */
const MAX_TRIES = 8

/**
 * Picks a member of `poolId` for `ask` and opens its socket, trying the next one
 * after each failure, leaving out `exclude` (provider ids); `failed`, the member a
 * stream just lost, makes the first choice a failover.
 */
export async function pickUpstream (
  runtime: PickRuntime, poolId: number, ask: ClientAsk,
  options: { forwardClientAuth: boolean, maxPayload: number },
  failed?: FailedAttempt, exclude: Set<number> = new Set()
): Promise<Picked> {
  const attempts: StreamAttempt[] = []
  let after = failed
  for (let tries = 0; tries < MAX_TRIES; tries++) {
    const choice = await runtime.choose(poolId, ask.path, exclude, after)
    if (choice.kind === 'unknown_pool') return choice
    if (choice.kind === 'none') return { kind: 'none', retryAfterS: choice.retryAfterS, attempts, refusals: choice.refusals }
    const member: StreamMember = choice.member
    const connected = await connectUpstream(member, ask, options)
    if (connected.kind === 'open') {
      runtime.report(poolId, member.provider_id, { success: true, latency_ms: connected.latencyMs })
      return { kind: 'open', member, socket: connected.socket }
    }
    const status = connected.kind === 'refused' ? connected.status : null
    const error = connected.kind === 'failed' ? connected.error : `upgrade refused with ${connected.status}`
    runtime.report(poolId, member.provider_id, { success: false, status_code: status, error, connect_failed: connected.kind === 'failed', credentials_rejected: false })
    runtime.release(member.id)
    attempts.push({ provider_id: member.provider_id, provider_name: member.provider_name, status_code: status, error })
    exclude.add(member.provider_id)
    after = { providerId: member.provider_id, reason: STREAM_FAILOVER }
  }
  return { kind: 'none', retryAfterS: null, attempts, refusals: [] }
}
