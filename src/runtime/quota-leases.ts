/**
 * Quota leases: a process takes a block of a provider's window from the database
 * (runtime.repository.ts leaseQuota, one conditional UPDATE) and hands it out in
 * memory, one use per proxied attempt — or, for a quota in credits, what the call
 * costs (rules/method-costs.ts). What it did not use goes back at the next flush or
 * at shutdown; a block lost in a crash stays counted as used, so the quota is never
 * exceeded, whichever number of processes share it. A call dearer than what is held
 * here asks for a block covering the difference at least; when the database has
 * less than that left, nothing is taken, and calls that dear skip the provider here
 * until the next flush (another process may give some back) while cheaper ones may
 * still lease: all of a window stays usable.
 */
import { quotaAt, type QuotaState, type QuotaUnit } from '../rules/quota.js'

/** One provider's lease in the current window. */
interface Lease {
  window: string
  unit: QuotaUnit
  resetsAt: string
  limit: number
  granted: number
  used: number
  /** Uses (requests or credits) handed out in this flush interval (sizes the next block). */
  recent: number
  /**
   * What the database had left in `window` when it last could not cover a call (0: used
   * up); Infinity while no call was refused. Until the next flush, a call dearer than
   * this and what is held here goes elsewhere.
   */
  left: number
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
  /** Drains so far: a lease asked before the latest one may have found the window short by what that drain gives back. */
  let drains = 0

  /**
   * The provider's lease for the window at `at`, starting afresh when the window moved
   * on, or the quota's unit changed (the stored counter started afresh with it: what was
   * held in the old unit is dropped, not given back).
   */
  function current (providerId: number, state: QuotaState, at: Date): Lease | undefined {
    const view = quotaAt(state, at)
    if (view === null) return undefined
    let lease = leases.get(providerId)
    if (lease === undefined || lease.window !== view.window_start || lease.unit !== view.unit) {
      const recent = lease?.unit === view.unit ? lease.recent : 0
      lease = { window: view.window_start, unit: view.unit, resetsAt: view.resets_at, limit: view.limit, granted: 0, used: 0, recent, left: Infinity }
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
      return lease.left <= 0 && lease.used >= lease.granted
        ? { quota_window_start: lease.window, quota_used: lease.limit }
        : { quota_window_start: lease.window, quota_used: 0 }
    },

    /** Takes `cost` (1 for a request) from the lease held here; false when a block must be leased first. */
    take (providerId: number, state: QuotaState, at: Date, cost = 1): boolean {
      const lease = current(providerId, state, at)
      if (lease === undefined) return true
      if (lease.used + cost > lease.granted) return false
      lease.used += cost
      lease.recent += cost
      return true
    },

    /**
     * How big a block to ask for a call of `cost`: what the last interval used, and half
     * again, never less than what the call lacks (`need`) nor more than the limit;
     * undefined when the provider cannot take the call here (its window used up, the
     * call dearer than the limit, or than what the database was last found to have left).
     */
    want (providerId: number, state: QuotaState, at: Date, cost = 1): { window: string, resetsAt: string, limit: number, want: number, need: number, drains: number } | undefined {
      const lease = current(providerId, state, at)
      if (lease === undefined || lease.left <= 0 || cost > lease.limit) return undefined
      const held = lease.granted - lease.used
      if (cost > held + lease.left) return undefined
      const need = Math.max(1, cost - held)
      return { window: lease.window, resetsAt: lease.resetsAt, limit: lease.limit, want: Math.max(need, Math.min(lease.limit, Math.ceil(lease.recent * 1.5) + 1)), need, drains }
    },

    /**
     * Adds a block the database granted for `window`; with none granted, `left` is what
     * it said was left (0, the default: the window is used up), unless a flush drained
     * the leases since the block was asked for (`drainsThen`): what it gives back may not
     * have been written when the database answered, so the next choice asks again. A
     * block asked for in another `unit` than the lease's now is dropped (the stored
     * counter started afresh with the new unit).
     */
    granted (providerId: number, window: string, count: number, left = 0, drainsThen = drains, unit?: string): void {
      const lease = leases.get(providerId)
      if (lease === undefined || lease.window !== window || (unit !== undefined && lease.unit !== unit)) return
      lease.granted += count
      if (count === 0 && drainsThen === drains) lease.left = left
    },

    /**
     * Drains what every lease did not use, to give back now (at a flush); the leases
     * start empty, and a window found used up is asked again (another process may
     * have given some back).
     */
    drain (at: Date): QuotaReturn[] {
      drains++
      const returns: QuotaReturn[] = []
      for (const [providerId, lease] of leases) {
        const unused = lease.granted - lease.used
        if (unused > 0 && Date.parse(lease.resetsAt) > at.getTime()) returns.push({ providerId, window: lease.window, unused })
        lease.granted = 0
        lease.used = 0
        lease.recent = 0
        lease.left = Infinity
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
