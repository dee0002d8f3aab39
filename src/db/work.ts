/**
 * Database work written once for both dialects: a service operation is a
 * generator that yields Kysely queries and receives their rows. The dialect's
 * runner (db/create-db.ts) executes it: synchronously inside one better-sqlite3
 * transaction on SQLite (no await between statements, so no other request can
 * interleave), or statement by statement inside a Kysely transaction on PostgreSQL.
 *
 * Repository functions are such generators: `yield* findPool(db, id)`.
 *
 * Work may also yield a Declaration (made by db/unit-of-work.ts `touched`): what it
 * changed, for whoever keeps state in memory. The runner keeps it instead of sending
 * it to the database (Effects, one per attempt of a write) and, once the
 * transaction has committed, hands the effects to the transact's `committed`.
 */
import type { Compilable } from 'kysely'
import type { Db } from './types.js'

/**
 * What a unit of work declares it changed (db/unit-of-work.ts builds them: yield
 * `touched(…)`, never one of these by hand). The runner answers it with the pools
 * of `bump` whose change_seq this attempt has not moved yet, and counts them moved.
 */
export class Declaration {
  constructor (
    /** Pools to tell of (`pool(id)`) once the transaction has committed. */
    readonly pools: readonly number[],
    /** Providers to tell of (`provider(id)`) once the transaction has committed. */
    readonly providers: readonly number[],
    /** Pools whose change_seq the unit must move (the runner answers those not moved yet). */
    readonly bump: readonly number[],
    /** Pools whose change_seq a statement of the unit has already moved. */
    readonly bumped: readonly number[] = []
  ) {}
}

/**
 * What one attempt of a write declared: the pools and providers to tell of, in the
 * order they were first declared, and the pools whose change_seq it has moved. A
 * new attempt (a PostgreSQL transaction run again) starts from new Effects; those
 * of an attempt rolled back are dropped with it.
 */
export class Effects {
  readonly pools = new Set<number>()
  readonly providers = new Set<number>()
  readonly #moved = new Set<number>()

  /** Keeps `declaration`; answers the pools of its `bump` not moved yet by this attempt (now counted as moved). */
  declare (declaration: Declaration): number[] {
    for (const id of declaration.pools) this.pools.add(id)
    for (const id of declaration.providers) this.providers.add(id)
    for (const id of declaration.bumped) this.#moved.add(id)
    const fresh: number[] = []
    for (const id of declaration.bump) {
      if (this.#moved.has(id)) continue
      this.#moved.add(id)
      fresh.push(id)
    }
    return fresh
  }

  /** Nothing to tell. */
  get empty (): boolean {
    return this.pools.size === 0 && this.providers.size === 0
  }
}

/**
 * How a driver answers a Declaration its work yielded: kept in `effects`, or refused
 * where nothing could be told (a read, or a transact given no `committed`).
 */
export function keep (effects: Effects | undefined, declaration: Declaration): number[] {
  if (effects === undefined) {
    throw new Error('work declared a change where none can be told (a read, or a transact without `committed`): run writes through unitOfWork (db/unit-of-work.ts)')
  }
  return effects.declare(declaration)
}

/** A unit of database work that finally returns T. */
export type Work<T> = Generator<Compilable<unknown> | Declaration, T, unknown[]>

/** Runs the query and returns all its rows. */
export function * all<R> (query: Compilable<R>): Work<R[]> {
  return (yield query) as R[]
}

/** Runs the query and returns its first row, or undefined. */
export function * first<R> (query: Compilable<R>): Work<R | undefined> {
  return (yield * all(query))[0]
}

/** Runs a statement for its effect. */
export function * execute (query: Compilable<unknown>): Work<void> {
  yield query
}

/** Something that runs work: the database handle, as services see it. */
export interface WorkRunner {
  /**
   * Runs `work` in one transaction: it all commits, or (on a throw) none of it does.
   * On PostgreSQL a transaction the server aborted as a deadlock or serialization
   * failure is run again from a fresh `work(db)` (a few times at most), so `work`
   * must not act outside the database: whatever it sets aside for after the commit
   * is set again (not added to) by the attempt that commits.
   *
   * What the work declared (Declaration) is handed to `committed` once, after the
   * attempt that commits has committed (and before the promise resolves); never for
   * an attempt rolled back. Without `committed`, work that declares anything fails.
   * Services do not pass it themselves: db/unit-of-work.ts `unitOfWork` does.
   */
  transact<T>(work: (db: Db) => Work<T>, committed?: (effects: Effects) => void): Promise<T>
  /** Runs read-only `work` on one connection; work that declares a change fails. */
  read<T>(work: (db: Db) => Work<T>): Promise<T>
}
