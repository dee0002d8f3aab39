/**
 * What this process has just committed, told to whoever keeps state in memory
 * (the proxy's pool runtime, the read model): a write declares what it changed in
 * its unit of work (db/unit-of-work.ts `touched`), and once it has committed the
 * runner calls `pool(id)` or `provider(id)`; every listener drops what it kept of
 * that pool (or of every pool the provider serves) at once. Other processes learn
 * the same change through `pools.change_seq` (migration 008), bumped by the same
 * declaration.
 */

/** A listener: `poolId` or `providerId` is set, never both. */
export type ChangeListener = (change: { readonly poolId?: number, readonly providerId?: number }) => void

/** The feed the unit-of-work runner tells and listeners follow. */
export interface ChangeFeed {
  /** The pool's row, its members, its history or its cursor changed. */
  pool(poolId: number): void
  /** The provider changed (name, rate limit, quota, credentials, refusals): so did every pool it serves. */
  provider(providerId: number): void
  /** Adds a listener; returns the function that removes it. */
  listen(listener: ChangeListener): () => void
}

/** A feed nobody listens to (services built without one). */
export const NO_CHANGES: ChangeFeed = { pool () {}, provider () {}, listen: () => () => {} }

/** Builds a feed; listeners are called synchronously, in the order they were added. */
export function createChangeFeed (): ChangeFeed {
  const listeners = new Set<ChangeListener>()
  return {
    pool (poolId) { for (const l of listeners) l({ poolId }) },
    provider (providerId) { for (const l of listeners) l({ providerId }) },
    listen (listener) {
      listeners.add(listener)
      return () => { listeners.delete(listener) }
    }
  }
}
