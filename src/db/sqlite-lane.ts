/**
 * How work takes its turns on SQLite's one connection (sqlite-dialect.ts): a unit of
 * work driven statement by statement, synchronously, pausing once it has worked for
 * a slice (SLICE_MS) with its transaction kept open; the lane that runs one task (a
 * group of writes, a read) at a time, in order, the others waiting behind the one
 * that holds a transaction open; and the transaction control they run in.
 */
import { performance } from 'node:perf_hooks'
import type { Database as SqliteDatabase } from 'better-sqlite3'
import type { Compilable } from 'kysely'
import { afterNextPoll, Breath, Declaration, keep, SLICE_MS, type Effects, type Work } from './work.js'

/**
 * How long, in all, a unit of work waits for a lock held by another process before it
 * fails with SQLITE_BUSY (answered as "the database is not answering; retry shortly").
 * Start-up (opening, migrating) waits as long, synchronously: nothing is served yet.
 */
export const BUSY_BUDGET_MS = 5000

/** The delay before the nth retry of busy work: 2, 4, 8 … ms, at most 50 ms. */
export function retryDelay (retry: number): number {
  return Math.min(2 * 2 ** retry, 50)
}

/**
 * Drives `work` to its end, executing each yielded query synchronously and keeping
 * what it declares in `effects`. Once the slice is `spent()` (checked after each
 * statement, declaration and breath), it yields: its task pauses there, the
 * transaction kept open, and goes on in a later turn of the event loop.
 */
export function * drive<T> (work: Work<T>, execute: (query: Compilable<unknown>) => unknown[], effects: Effects | undefined, spent: () => boolean): Generator<void, T, void> {
  let step = work.next()
  while (step.done !== true) {
    const value = step.value
    let answer: unknown[]
    if (value instanceof Declaration) answer = keep(effects, value)
    else if (value instanceof Breath) answer = []
    else answer = execute(value)
    if (spent()) yield
    step = work.next(answer)
  }
  return step.value
}

/**
 * The one connection's turn-taking: tasks (a group of writes, a read) run one at a
 * time, in the order they came. A task is a generator that yields when its slice
 * is spent; it is then taken up again after the event loop has turned (afterNextPoll),
 * and every other task waits behind it: nothing runs on the connection while a
 * task holds a transaction open, so no work sees or joins another's uncommitted rows.
 * A task entered while nothing runs starts at once, in the caller's turn.
 */
export interface Lane {
  enter(task: Generator<void, void, void>): void
  /** True once the running task has worked for SLICE_MS since the event loop last turned. */
  spent(): boolean
}

export function createLane (): Lane {
  const waiting: Array<Generator<void, void, void>> = []
  let running: Generator<void, void, void> | undefined
  let scheduled = false
  let sliceEnd = 0
  const schedule = () => {
    if (scheduled) return
    scheduled = true
    afterNextPoll(pump)
  }
  function pump (): void {
    scheduled = false
    sliceEnd = performance.now() + SLICE_MS
    for (;;) {
      if (running === undefined) {
        running = waiting.shift()
        if (running === undefined) return
      }
      let done: boolean | undefined
      try {
        done = running.next().done
      } catch {
        // Tasks answer their own failures; one that throws anyway must not stop the lane.
        done = true
      }
      if (done !== true) {
        schedule()
        return
      }
      running = undefined
      if (waiting.length > 0 && performance.now() >= sliceEnd) {
        schedule()
        return
      }
    }
  }
  return {
    enter: (task) => {
      waiting.push(task)
      if (running === undefined && !scheduled) pump()
    },
    spent: () => performance.now() >= sliceEnd
  }
}

/**
 * BEGIN … COMMIT on the connection, or a savepoint when it is already in a
 * transaction not the runner's (Kysely's, while migrating); and the savepoint each
 * write of a group runs in.
 */
export function transactionControl (database: SqliteDatabase) {
  const run = (text: string) => {
    const statement = database.prepare(text)
    return () => { statement.run() }
  }
  const begin = { immediate: run('BEGIN IMMEDIATE'), deferred: run('BEGIN') }
  const [commit, rollback] = [run('COMMIT'), run('ROLLBACK')]
  const outer = { open: run('SAVEPOINT outer_work'), release: run('RELEASE outer_work'), undo: run('ROLLBACK TO outer_work') }
  const unit = { open: run('SAVEPOINT unit_work'), release: run('RELEASE unit_work'), undo: run('ROLLBACK TO unit_work') }
  return {
    /** Opens the transaction; answers whether it is nested in one already open. */
    begin: (immediate: boolean): boolean => {
      if (database.inTransaction) {
        outer.open()
        return true
      }
      if (immediate) begin.immediate()
      else begin.deferred()
      return false
    },
    commit: (nested: boolean) => { if (nested) outer.release(); else commit() },
    /** Rolls back what the transaction wrote, if SQLite has not already. */
    rollback: (nested: boolean) => {
      if (!database.inTransaction) return
      if (!nested) return rollback()
      outer.undo()
      outer.release()
    },
    /** Runs `write` in a savepoint: rolled back alone when it throws. */
    savepoint: function * <T> (write: () => Generator<void, T, void>): Generator<void, T, void> {
      unit.open()
      let value: T
      try {
        value = yield * write()
      } catch (error) {
        if (database.inTransaction) {
          unit.undo()
          unit.release()
        }
        throw error
      }
      unit.release()
      return value
    }
  }
}

export type TransactionControl = ReturnType<typeof transactionControl>
