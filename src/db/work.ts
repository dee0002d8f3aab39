/**
 * Database work written once for both dialects: a service operation is a
 * generator that yields Kysely queries and receives their rows. The dialect's
 * runner (db/create-db.ts) executes it: statement by statement, synchronously,
 * inside one better-sqlite3 transaction on SQLite (no other work runs on the
 * connection until it ends), or inside a Kysely transaction on PostgreSQL.
 *
 * Repository functions are such generators: `yield* findPool(db, id)`.
 *
 * Work may also yield a Declaration (made by db/unit-of-work.ts `touched`): what it
 * changed, for whoever keeps state in memory. The runner keeps it instead of sending
 * it to the database (Effects, one per attempt of a write) and, once the
 * transaction has committed, hands the effects to the transact's `committed`.
 *
 * A long unit does not hold the event loop: between its statements (and where it
 * yields `breathe()` in a long stretch of its own computing) the runner lets other
 * requests be served once it has worked for a slice (SLICE_MS), its transaction kept
 * open; nothing else runs on that transaction meanwhile (docs/decisions.md).
 */
import { performance } from 'node:perf_hooks'
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

/**
 * How long (ms) a runner works at one stretch on a unit of work or a read before it
 * lets the event loop serve others, the unit's transaction kept open meanwhile.
 */
export const SLICE_MS = 10

/** What `breathe()` yields: a point in a unit's own long computing where the runner may let the event loop turn. */
export class Breath {}
const BREATH = new Breath()

/**
 * Lets the runner pause here if the unit has worked for a slice (SLICE_MS): for a
 * long loop of the unit's own computing between statements (a plan of thousands of
 * pools). Costs nothing when the slice is not spent.
 */
export function * breathe (): Work<void> {
  yield BREATH
}

/**
 * Computing done a piece at a time: a generator that yields (nothing) between its
 * pieces, each short (a millisecond or so), and finally returns T. Run inside a unit
 * of work with `breathing`, outside one with `paced`.
 */
export type Pieces<T> = Generator<void, T, void>

/** Runs `pieces` inside a unit of work, letting the runner pause between them (breathe). */
export function * breathing<T> (pieces: Pieces<T>): Work<T> {
  let step = pieces.next()
  while (step.done !== true) {
    yield * breathe()
    step = pieces.next()
  }
  return step.value
}

/**
 * Calls `next` once the event loop has polled for I/O (requests, answers from the
 * database) and run its timers once more: two setImmediate hops, as one alone, from
 * an I/O callback, runs before the next poll.
 */
export function afterNextPoll (next: () => void): void {
  setImmediate(() => { setImmediate(next) })
}

/** Resolves once the event loop has polled for I/O once more (afterNextPoll). */
export async function nextTurn (): Promise<void> {
  await new Promise<void>((resolve) => { afterNextPoll(resolve) })
}

/**
 * Runs `pieces` outside any unit of work, letting the event loop turn (nextTurn)
 * whenever they have run for SLICE_MS: a plan of thousands of pools, an answer of
 * megabytes, without holding other requests.
 */
export async function paced<T> (pieces: Pieces<T>): Promise<T> {
  let sliceEnd = performance.now() + SLICE_MS
  for (let step = pieces.next(); ; step = pieces.next()) {
    if (step.done === true) return step.value
    if (performance.now() >= sliceEnd) {
      await nextTurn()
      sliceEnd = performance.now() + SLICE_MS
    }
  }
}

/**
 * Yields `items` one by one, letting the event loop turn (nextTurn) whenever SLICE_MS
 * has passed: for a stream whose pieces take long to make (a large answer written to
 * a socket that takes all it is given at once).
 */
export async function * pacedItems<T> (items: Iterable<T>): AsyncGenerator<T, void, undefined> {
  let sliceEnd = performance.now() + SLICE_MS
  for (const item of items) {
    yield item
    if (performance.now() >= sliceEnd) {
      await nextTurn()
      sliceEnd = performance.now() + SLICE_MS
    }
  }
}

/** A unit of database work that finally returns T. */
export type Work<T> = Generator<Compilable<unknown> | Declaration | Breath, T, unknown[]>

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
