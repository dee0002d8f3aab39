/**
 * Restoring a stream whose upstream side was lost: the first try at once (the
 * client should not notice), then rounds over the whole pool with a full-jitter
 * backoff (100 ms doubling, at most 5 s) until a member opens or RESTORE_DEADLINE_MS
 * has passed. The first round leaves out the member that was lost; later rounds
 * may come back to it (it may have been the only one, and back).
 */
import { pickUpstream, STREAM_FAILOVER, type PickRuntime } from './upstream-pick.js'
import type WebSocket from 'ws'
import type { ClientAsk, StreamMember } from './upstream-connect.js'

/** The longest a stream waits for another member before its client is told (close 1014). */
export const RESTORE_DEADLINE_MS = 30_000

/** The close code of a stream no member could take over: 1014, "bad gateway" (RFC 6455 registry). */
export const NO_MEMBER_CLOSE = 1014

/** A loss this soon after the stream moved counts as a quick one: the next restore starts later. */
export const QUICK_LOSS_MS = 5_000
/** Quick losses in a row after which a stream is given up (1014). */
export const MAX_QUICK_LOSSES = 8

/** A stream's quick losses in a row after one more loss, its upstream attached at `attachedAt`; MAX_QUICK_LOSSES gives it up. */
export function quickLossesAfter (previous: number, attachedAt: number): number {
  return Date.now() - attachedAt < QUICK_LOSS_MS ? previous + 1 : 0
}

/** The wait before restore round `round` (≥ 1): full jitter over 100 ms · 2^(round−1), at most 5 s. */
export function backoffMs (round: number, random: () => number): number {
  return Math.floor(random() * Math.min(5_000, 100 * 2 ** Math.min(round - 1, 10)))
}

/** What restoring needs of the stream. */
export interface Restoring {
  readonly runtime: PickRuntime
  readonly poolId: number
  readonly ask: ClientAsk
  readonly options: { forwardClientAuth: boolean, maxPayload: number }
  readonly random: () => number
  /** True once the stream has ended (its client left): restoring stops. */
  readonly ended: () => boolean
}

/**
 * A member that took the stream over and its open socket, or undefined when none did in
 * time. `after`: how many times the stream was lost again soon after moving; the first
 * try then waits as round `after` would.
 */
export async function restoreUpstream (r: Restoring, lost: StreamMember, deadlineMs = RESTORE_DEADLINE_MS, after = 0): Promise<{ member: StreamMember, socket: WebSocket } | undefined> {
  const deadline = Date.now() + deadlineMs
  const failed = { providerId: lost.provider_id, reason: STREAM_FAILOVER }
  let exclude = new Set([lost.provider_id])
  for (let round = after; !r.ended(); round++) {
    if (round > 0) {
      const wait = Math.min(backoffMs(round, r.random), deadline - Date.now())
      if (wait < 0) return undefined
      await new Promise((resolve) => setTimeout(resolve, wait))
      if (r.ended()) return undefined
    }
    const picked = await pickUpstream(r.runtime, r.poolId, r.ask, r.options, failed, exclude)
    if (picked.kind === 'open') return picked
    if (picked.kind === 'unknown_pool' || Date.now() >= deadline) return undefined
    exclude = new Set()
  }
  return undefined
}
