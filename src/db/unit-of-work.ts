/**
 * A unit of work collects its effects. A write declares, inside its unit of work,
 * what it changed — `yield * touched(db, { pools: [id] })`, or
 * `touched(db, { providers: [id] })` — and the runner does both halves that every
 * write used to do by hand:
 *
 * - in the transaction, at the declaration, each touched pool's `change_seq`
 *   (migration 008) is bumped, ONCE per unit however often it is declared, so other
 *   processes' read models and runtimes see the change;
 * - once the transaction has committed, the change feed (changes.ts) is told ONCE:
 *   `provider(id)` for each provider declared, then `pool(id)` for each pool. Never
 *   for a unit rolled back (a throw), and on PostgreSQL only by the attempt that
 *   commits: an attempt aborted as a deadlock or serialization failure and run again
 *   from a fresh `work(db)` leaves nothing behind (db/work.ts Effects).
 *
 * The bump is made where it is declared, not at the end, because the declaration
 * also takes the pools' row locks (PostgreSQL): a write declares first what it
 * touches, so it locks pools before members and providers, as rotations do.
 *
 * ```ts
 * // a service, once: writes through the runner that tells its change feed
 * const database = unitOfWork(handle, changes)
 * await database.transact(function * (db) {
 *   yield * touched(db, { pools: [poolId] })            // pool row, members, history, cursor
 *   yield * repo.updateMember(db, poolId, providerId, fields)
 * })
 * // a provider's quota, credentials or refusals: every pool it serves (answered, locked in id order)
 * const pools = yield * touched(db, { providers: [providerId] })
 * // its name or its row: every pool whose status record shows it
 * yield * touched(db, { providers: [providerId], reach: 'shows' })
 * // a pool created or deleted: told, no change_seq to move (other processes find the id appear or go)
 * yield * touched(db, { createdPools: [row.id] })
 * // a statement that moves change_seq itself (recordPoolRotation): told, not bumped again
 * yield * alreadyTouched([poolId])
 * ```
 *
 * The runtime (runtime/change-news.ts) writes through a runner of its own whose sink
 * tells the feed without the runtime hearing its own news back; its flush's UPDATE,
 * which moves change_seq itself, declares `alreadyTouched(pools)` so nothing bumps them again.
 */
import { lockRows } from './create-db.js'
import { prepared } from './prepared.js'
import type { Db } from './types.js'
import { all, Declaration, execute, type Effects, type Work, type WorkRunner } from './work.js'

/**
 * How many of a pool's newest history records its status record shows
 * (pools/pool-status.ts takes it from here): a provider named in one of them is
 * shown by the pool, and its rename reaches that pool.
 */
export const RECENT_ROTATIONS_SHOWN = 10

/** What a unit of work changed; every list may be left out. */
export interface Touched {
  /** Pools whose row, members, history or cursor changed: bumped (once per unit) and told. */
  readonly pools?: readonly number[]
  /** Pools the unit created: told; a new row has nothing to bump. */
  readonly createdPools?: readonly number[]
  /** Pools the unit deleted: told; their rows are gone. */
  readonly deletedPools?: readonly number[]
  /**
   * Providers that changed (name, rate limit, quota used, credentials, refusals, checks):
   * the pools they reach are locked in id order and bumped, and `provider(id)` is told
   * (the feed's listeners find the pools themselves).
   */
  readonly providers?: readonly number[]
  /**
   * Which pools a provider's change reaches: `serves` (the default), those it is a member
   * of (quotas, credentials, refusals, checks show through memberships alone); `shows`,
   * those whose status record names it, as a member, the current provider or in one of
   * the newest history records (a rename, or, before the row goes, a deletion).
   */
  readonly reach?: 'serves' | 'shows'
}

/** Whom the runner tells after a commit: the change feed (changes.ts), or any listener shaped like it. */
export interface ChangeSink {
  pool(poolId: number): void
  provider(providerId: number): void
}

// Selected in id order and locked (PostgreSQL) before they are bumped: see bumpChangeSeqs.
const poolsServing = (db: Db, providerIds: readonly number[]) => lockRows(db, db.selectFrom('pools').select('id')
  .where('id', 'in', db.selectFrom('pool_members').select('pool_id').where('provider_id', 'in', providerIds))
  .orderBy('id'))

const poolsShowing = (db: Db, providerIds: readonly number[]) => lockRows(db, db.selectFrom('pools')
  .select('id')
  .where((eb) => eb.or([
    eb('current_provider_id', 'in', providerIds),
    eb('id', 'in', eb.selectFrom('pool_members').select('pool_id').where('provider_id', 'in', providerIds)),
    // Only the records a status record shows: one short walk of the (pool_id, timestamp, id)
    // index per pool, however long the history.
    eb.exists(eb.selectFrom('rotation_history as shown')
      .select('shown.id')
      .where('shown.id', 'in', eb.selectFrom('rotation_history as newest')
        .select('newest.id')
        .whereRef('newest.pool_id', '=', 'pools.id')
        .orderBy('newest.timestamp', 'desc').orderBy('newest.id', 'desc')
        .limit(RECENT_ROTATIONS_SHOWN))
      .where((inner) => inner.or([
        inner('shown.from_provider_id', 'in', providerIds),
        inner('shown.to_provider_id', 'in', providerIds)
      ])))
  ]))
  .orderBy('id'))

/** The ids of the pools serving (or showing) `providerIds`, locked in id order. */
export function * lockPoolsOf (db: Db, providerIds: readonly number[], reach: 'serves' | 'shows' = 'serves'): Work<number[]> {
  if (providerIds.length === 0) return []
  return (yield * all(reach === 'shows' ? poolsShowing(db, providerIds) : poolsServing(db, providerIds))).map((row) => row.id)
}

const bumpPool = prepared((db, p: { id: number }) =>
  db.updateTable('pools').set((eb) => ({ change_seq: eb('change_seq', '+', 1) })).where('id', '=', p.id))

/**
 * Bumps the pools' change_seq and tells no one: what `touched` runs. Several pools must be locked in id order first (lockPoolsOf): one
 * UPDATE over several pools would lock them in the order of its plan, and two such
 * updates (two processes touching the pools of one provider) deadlock on PostgreSQL.
 */
export function * bumpChangeSeqs (db: Db, poolIds: readonly number[]): Work<void> {
  if (poolIds.length === 0) return
  if (poolIds.length === 1) {
    yield * execute(bumpPool(db, { id: poolIds[0] as number }))
    return
  }
  yield * execute(db.updateTable('pools').set((eb) => ({ change_seq: eb('change_seq', '+', 1) })).where('id', 'in', poolIds))
}

/**
 * Declares what the unit of work changed (see the header and Touched): the pools are
 * bumped here, unless this unit bumped them already, and told after the commit. The
 * providers' pools are locked (in id order) and bumped before the pools named. Answers
 * the pools marked: those the providers reach (in id order), then the pools named.
 */
export function * touched (db: Db, what: Touched): Work<number[]> {
  const providers = what.providers ?? []
  const reached = yield * lockPoolsOf(db, providers, what.reach)
  if (providers.length > 0) {
    // Locked above: one statement for them all.
    yield * bumpChangeSeqs(db, (yield new Declaration([], providers, reached)) as number[])
  }
  const pools = what.pools ?? []
  const told = [...pools, ...what.createdPools ?? [], ...what.deletedPools ?? []]
  if (told.length > 0) {
    const fresh = (yield new Declaration(told, [], pools)) as number[]
    // Not locked before: one at a time, in id order.
    for (const id of fresh.sort((a, b) => a - b)) yield * bumpChangeSeqs(db, [id])
  }
  return pools.length === 0 ? reached : [...new Set([...reached, ...pools])]
}

/**
 * Declares pools touched whose change_seq a statement of this unit has just moved
 * itself, in an UPDATE it makes anyway (pool.repository.ts recordPoolRotation: one
 * statement on a rotation's path, not two): they are told after the commit, and a
 * later `touched` of them in this unit bumps nothing more.
 */
export function * alreadyTouched (poolIds: readonly number[]): Work<void> {
  yield new Declaration(poolIds, [], [], poolIds)
}

/** Tells `sink` what a committed unit declared: each provider, then each pool, in the order first declared. */
export function tell (sink: ChangeSink, effects: Effects): void {
  for (const id of effects.providers) sink.provider(id)
  for (const id of effects.pools) sink.pool(id)
}

const TELLS = Symbol('unitOfWork: the sink its transact tells')

/**
 * The runner services write through: `database` (a DbHandle, or any work runner over
 * one), whose `transact` tells `sink` what each committed unit declared (touched).
 * Everything else of `database` (read, changeToken, …) is passed through as it is.
 * Wrapping a runner that already tells `sink` answers it unchanged (nothing is told twice).
 */
export function unitOfWork<R extends WorkRunner> (database: R, sink: ChangeSink): R {
  if ((database as { [TELLS]?: ChangeSink })[TELLS] === sink) return database
  const transact: WorkRunner['transact'] = async (work, committed) => await database.transact(work, (effects) => {
    tell(sink, effects)
    committed?.(effects)
  })
  return { ...database, transact, [TELLS]: sink } as R
}
