/**
 * Database work written once for both dialects: a service operation is a
 * generator that yields Kysely queries and receives their rows. The dialect's
 * runner (db/create-db.ts) executes it: synchronously inside one better-sqlite3
 * transaction on SQLite (no await between statements, so no other request can
 * interleave), or statement by statement inside a Kysely transaction on PostgreSQL.
 *
 * Repository functions are such generators: `yield* findPool(db, id)`.
 */
import type { Compilable } from 'kysely'
import type { Db } from './types.js'

/** A unit of database work that finally returns T. */
export type Work<T> = Generator<Compilable<unknown>, T, unknown[]>

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
   */
  transact<T>(work: (db: Db) => Work<T>): Promise<T>
  /** Runs read-only `work` on one connection. */
  read<T>(work: (db: Db) => Work<T>): Promise<T>
}
