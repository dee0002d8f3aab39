/**
 * The runtime's state, in this process's memory and in one place: the pools it keeps
 * (read by pool-loader.ts), what proxied traffic did and has not written down yet
 * (batch.ts), the batch a flush is writing, the quota leases, the attempts in
 * flight per member, and the probe gates of members that failed to connect
 * (probe-gates.ts). A flush drains it into an immutable FlushBatch and hands back
 * what the flusher read (a FlushResult) to apply, or the batch when it could not be
 * written; news of a change made elsewhere marks the pools it concerns stale.
 */
import type { MemberWithName } from '../pools/member.repository.js'
import type { RotationState } from '../rules/strategies.js'
import { emptyPending, isEmptyPending, mergePending, type FlushBatch, type FlushResult, type Pending, type PendingView } from './batch.js'
import { createProbeGates } from './probe-gates.js'
import { createQuotaLeases } from './quota-leases.js'
import type { RuntimePoolRow } from './runtime.repository.js'

/** A member as the runtime keeps it (its counters and health change in place). */
export type Member = { -readonly [K in keyof MemberWithName]: MemberWithName[K] }

/** One pool as this process keeps it. */
export interface PoolState {
  pool: RuntimePoolRow
  members: Member[]
  cursor: RotationState
  /** provider id → resource (first path segment) → when its 403 refusal ends. */
  refusals: Map<number, Map<string, string>>
  /** provider id → exact path → when its 401/402 refusal of our credentials ends (rules/credential-refusal.ts). */
  rejections: Map<number, Map<string, string>>
  /** Changed in the database since it was read: read again before the next choice. */
  stale: boolean
}

/** Builds the empty state of one runtime. */
export function createRuntimeState () {
  const pools = new Map<number, PoolState>()
  /** member id → proxied attempts chosen and not yet released (least_outstanding). */
  const inFlight = new Map<number, number>()
  const leases = createQuotaLeases()
  /** One probe at a time, one a second, to a member cooling down after a failed connection. */
  const probes = createProbeGates()
  let pending = emptyPending()
  /** The batch a flush is writing now, if any. */
  let writing: FlushBatch | undefined

  return {
    pools,

    /** The pool's state when it is held and not stale (what `stateOf` would answer without a read). */
    current: (poolId: number): PoolState | undefined => {
      const state = pools.get(poolId)
      return state === undefined || state.stale ? undefined : state
    },
    inFlight,
    leases,
    probes,
    /** What proxied traffic adds to now (a flush starts a new one). */
    pending: (): Pending => pending,
    /** What the database may not have yet: the batch being written, then what is pending. */
    unwritten: (): readonly PendingView[] => writing === undefined ? [pending] : [writing, pending],
    /** True when something is pending. */
    hasPending: (): boolean => !isEmptyPending(pending),
    /** True while a flush is giving back quota of the provider (drained here, not yet written). */
    returning: (providerId: number): boolean => writing !== undefined && writing.quotaReturns.some((r) => r.providerId === providerId),
    /** True when something is pending or being written. */
    unsettled: (): boolean => !isEmptyPending(pending) || writing !== undefined,

    /**
     * Takes what is pending, the leased quota to give back and the pools to read back,
     * as the batch a flush writes (a new Pending starts); undefined when there is nothing
     * to write nor read.
     */
    drain (at: Date): FlushBatch | undefined {
      const taken = pending
      pending = emptyPending()
      const quotaReturns = leases.drain(at)
      const knownPools = [...pools.keys()]
      if (isEmptyPending(taken) && quotaReturns.length === 0 && knownPools.length === 0) return undefined
      writing = { ...taken, quotaReturns, knownPools, at: at.toISOString() }
      return writing
    },

    /** Takes back a batch that could not be written: in front of what came since, its quota held here again. */
    putBack (batch: FlushBatch): void {
      writing = undefined
      pending = mergePending(batch, pending)
      leases.restore(batch.quotaReturns)
    },

    /** Applies what a flush of `batch` read: a pool gone is dropped, one another writer changed is marked stale. */
    apply (batch: FlushBatch, result: FlushResult): void {
      writing = undefined
      for (const id of batch.knownPools) {
        const state = pools.get(id)
        if (state === undefined) continue
        const seq = result.changeSeqs.get(id)
        if (seq === undefined) {
          pools.delete(id)
          continue
        }
        const mine = result.written.get(id)
        // Our own write moved it by one from what we knew, and nobody wrote since: still current.
        if (mine === state.pool.change_seq + 1 && seq === mine) state.pool.change_seq = seq
        else if (seq !== state.pool.change_seq) state.stale = true
      }
    },

    /** A change committed elsewhere in this process: the pool, or every pool the provider serves, is read again. */
    markChanged ({ poolId, providerId }: { readonly poolId?: number, readonly providerId?: number }): void {
      if (poolId !== undefined) {
        const state = pools.get(poolId)
        if (state !== undefined) state.stale = true
      }
      if (providerId !== undefined) {
        for (const state of pools.values()) if (state.members.some((m) => m.provider_id === providerId)) state.stale = true
      }
    }
  }
}

export type RuntimeState = ReturnType<typeof createRuntimeState>
