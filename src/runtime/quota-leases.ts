/**
 * Quota leases: a process takes a block of a provider's window from the database
 * (runtime.repository.ts leaseQuota, one conditional UPDATE) and hands it out in
 * memory, one use per proxied attempt. What it did not use goes back at the next
 * flush or at shutdown; a block lost in a crash stays counted as used, so the
 * quota is never exceeded, whichever number of processes share it.
 */
import { quotaAt, type QuotaState } from '../rules/quota.js'

/** One provider's lease in the current window. */
interface Lease {
  window: string
  resetsAt: string
  limit: number
  granted: number
  used: number
  /** Uses handed out in this flush interval (sizes the next block). */
  recent: number
  /** The database had nothing left in `window`. */
  exhausted: boolean
}

/** A lease to give back: `unused` uses of `window`. */
export interface QuotaReturn {
  readonly providerId: number
  readonly window: string
  readonly unused: number
}

/** The in-memory side of the leases of one process. */
export function createQuotaLeases () {
  const leases = new Map<number, Lease>()

  /** The provider's lease for the window at `at`, starting afresh when the window moved on. */
  function current (providerId: number, state: QuotaState, at: Date): Lease | undefined {
    const view = quotaAt(state, at)
    if (view === null) return undefined
    let lease = leases.get(providerId)
    if (lease === undefined || lease.window !== view.window_start) {
      lease = { window: view.window_start, resetsAt: view.resets_at, limit: view.limit, granted: 0, used: 0, recent: lease?.recent ?? 0, exhausted: false }
      leases.set(providerId, lease)
    }
    lease.limit = view.limit
    return lease
  }

  return {
    /**
     * The quota state a plan should see for the provider at `at`: used up only
     * once the database said so for this window, so a block held here is spent first.
     */
    view (providerId: number, state: QuotaState, at: Date): { quota_window_start: string | null, quota_used: number } {
      const lease = current(providerId, state, at)
      if (lease === undefined) return { quota_window_start: null, quota_used: 0 }
      return lease.exhausted && lease.used >= lease.granted
        ? { quota_window_start: lease.window, quota_used: lease.limit }
        : { quota_window_start: lease.window, quota_used: 0 }
    },

    /** Takes one use from the lease held here; false when a block must be leased first. */
    take (providerId: number, state: QuotaState, at: Date): boolean {
      const lease = current(providerId, state, at)
      if (lease === undefined) return true
      if (lease.used >= lease.granted) return false
      lease.used++
      lease.recent++
      return true
    },

    /**
     * How big a block to ask for: what the last interval used, and half again,
     * never less than one nor more than the limit.
     */
    want (providerId: number, state: QuotaState, at: Date): { window: string, resetsAt: string, limit: number, want: number } | undefined {
      const lease = current(providerId, state, at)
      if (lease === undefined || lease.exhausted) return undefined
      return { window: lease.window, resetsAt: lease.resetsAt, limit: lease.limit, want: Math.max(1, Math.min(lease.limit, Math.ceil(lease.recent * 1.5) + 1)) }
    },

    /** Adds a block the database granted for `window` (0: the window is used up). */
    granted (providerId: number, window: string, count: number): void {
      const lease = leases.get(providerId)
      if (lease === undefined || lease.window !== window) return
      lease.granted += count
      if (count === 0) lease.exhausted = true
    },

    /**
     * Drains what every lease did not use, to give back now (at a flush); the leases
     * start empty, and a window found used up is asked again (another process may
     * have given some back).
     */
    drain (at: Date): QuotaReturn[] {
      const returns: QuotaReturn[] = []
      for (const [providerId, lease] of leases) {
        const unused = lease.granted - lease.used
        if (unused > 0 && Date.parse(lease.resetsAt) > at.getTime()) returns.push({ providerId, window: lease.window, unused })
        lease.granted = 0
        lease.used = 0
        lease.recent = 0
        lease.exhausted = false
        if (Date.parse(lease.resetsAt) <= at.getTime()) leases.delete(providerId)
      }
      return returns
    },

    /** Puts back returns that could not be written (the flush failed): they stay held here. */
    restore (returns: readonly QuotaReturn[]): void {
      for (const r of returns) {
        const lease = leases.get(r.providerId)
        if (lease !== undefined && lease.window === r.window) lease.granted += r.unused
      }
    },

    /** Forgets what is known of a provider whose rate limit changed. */
    forget (providerId: number): void {
      leases.delete(providerId)
    }
  }
}

export type QuotaLeases = ReturnType<typeof createQuotaLeases>
