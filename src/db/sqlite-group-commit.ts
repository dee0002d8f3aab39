/**
 * SQLite's group commit (sqlite-dialect.ts): the writes that wait for their turn on
 * the connection share one transaction and its commit, each in a savepoint of its
 * own, and go back to the queue, in order, when another process holds the lock
 * before any of them has begun.
 */
import type { Database as SqliteDatabase } from 'better-sqlite3'
import { isBusy } from './errors.js'
import { BUSY_BUDGET_MS, retryDelay, type Lane, type TransactionControl } from './sqlite-lane.js'
import type { Db } from './types.js'
import { Effects, type Work } from './work.js'

/** A write waiting for its group (see groupCommit). */
interface Pending {
  work: (db: Db) => Work<unknown>
  committed: ((effects: Effects) => void) | undefined
  resolve: (value: unknown) => void
  reject: (error: unknown) => void
  /** When this write stops waiting for another process's lock (Date.now() time), from the first time it met it. */
  deadline: number | undefined
}

type Outcome = { ok: true, value: unknown, effects: Effects | undefined } | { ok: false, error: unknown }

/**
 * Group commit: the writes that arrive while their group waits to start (those of
 * one turn of the event loop, or all that came while a long unit held the connection)
 * run one after the other inside one BEGIN IMMEDIATE … COMMIT, each in its own
 * savepoint (a write that throws is rolled back alone), and are answered once that
 * commit is done. Each stays atomic and serialised; the commit, most of a small
 * write's cost, is shared. A group is one task of the lane: a long write pauses it
 * (and its transaction) between statements, and the writes after it wait.
 *
 * When another process holds the write lock, BEGIN IMMEDIATE fails with SQLITE_BUSY
 * before any work has run, and the whole group goes back to the head of the queue,
 * in order, to be tried again after a short delay; writes arriving meanwhile queue
 * behind it and run in the same group. Only writes whose budget is spent fail. (Work
 * that has started is never run again: a unit may have effects outside the database.)
 * What a write declared is handed to its `committed` after the group's commit, before
 * it is answered; a write rolled back (alone, or with its group) hands nothing.
 */
export function groupCommit (
  database: SqliteDatabase, control: TransactionControl, lane: Lane,
  run: (db: Db, work: (db: Db) => Work<unknown>, effects: Effects | undefined) => Generator<void, unknown, void>, db: Db
) {
  let queue: Pending[] = []
  let flushScheduled = false
  let retries = 0
  const scheduleFlush = (delay?: number) => {
    flushScheduled = true
    if (delay === undefined) setImmediate(() => { lane.enter(flush()) })
    else setTimeout(() => { lane.enter(flush()) }, delay)
  }

  /** The group could not begin: another process holds the lock. Back to the head of the queue, or failed past their budget. */
  const waitForLock = (items: Pending[], error: unknown) => {
    const now = Date.now()
    const kept = items.filter((item) => {
      item.deadline ??= now + BUSY_BUDGET_MS
      if (item.deadline > now) return true
      item.reject(error)
      return false
    })
    queue = [...kept, ...queue]
    if (queue.length > 0) scheduleFlush(retryDelay(retries++))
    else retries = 0
  }

  const answer = (items: Pending[], outcomes: Outcome[]) => {
    items.forEach((item, i) => {
      const outcome = outcomes[i] as Outcome
      if (!outcome.ok) return item.reject(outcome.error)
      if (outcome.effects !== undefined && !outcome.effects.empty) {
        try {
          item.committed?.(outcome.effects)
        } catch (error) {
          return item.reject(error)
        }
      }
      item.resolve(outcome.value)
    })
  }

  function * flush (): Generator<void, void, void> {
    flushScheduled = false
    const items = queue
    queue = []
    let nested: boolean
    try {
      nested = control.begin(true)
    } catch (error) {
      if (isBusy(error)) return waitForLock(items, error)
      retries = 0
      for (const item of items) item.reject(error)
      return
    }
    retries = 0
    const outcomes: Outcome[] = []
    try {
      for (const item of items) {
        const effects = item.committed === undefined ? undefined : new Effects()
        try {
          outcomes.push({ ok: true, value: yield * control.savepoint(() => run(db, item.work, effects)), effects })
        } catch (error) {
          // An error that made SQLite roll back the whole transaction fails the group.
          if (!database.inTransaction) throw error
          outcomes.push({ ok: false, error })
        }
      }
      control.commit(nested)
    } catch (error) {
      control.rollback(nested)
      for (const item of items) item.reject(error)
      return
    }
    answer(items, outcomes)
  }

  return {
    transact: async <T>(work: (db: Db) => Work<T>, committed?: (effects: Effects) => void) => await new Promise<T>((resolve, reject) => {
      queue.push({ work, committed, resolve: resolve as (value: unknown) => void, reject, deadline: undefined })
      if (!flushScheduled) scheduleFlush()
    })
  }
}
