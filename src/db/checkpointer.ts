/**
 * SQLite's WAL checkpoints, off the event loop. SQLite's own (automatic) checkpoint
 * runs inside the COMMIT that passes `wal_autocheckpoint`, copying the whole WAL into
 * the database file there and then, synchronously: about 5 ms per MB on this VM,
 * 300 ms after one large chunk batch or apply. Once the service serves, its
 * connection turns that off and a worker thread, with a connection of its own, runs
 * a PASSIVE checkpoint (it never waits for, nor blocks, readers and writers) every
 * CHECKPOINT_INTERVAL_MS; the next write after a complete one starts the WAL afresh.
 * Should the worker fail, the connection checkpoints by itself again.
 */
import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import type { Database as SqliteDatabase } from 'better-sqlite3'

/** How often the worker checkpoints: at most one fsync of the database file a second. */
export const CHECKPOINT_INTERVAL_MS = 1000

/** The automatic checkpoint of a connection without the worker (pages of WAL): rotations rewrite the same few pages, so rarer checkpoints save most of their cost. */
export const AUTOCHECKPOINT_PAGES = 10_000

const BETTER_SQLITE3 = createRequire(import.meta.url).resolve('better-sqlite3')

// CommonJS, run by the worker as it is: nothing of the service is loaded there.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads')
const Database = require(workerData.driver)
const db = new Database(workerData.path, { fileMustExist: true })
const checkpoint = () => { try { db.pragma('wal_checkpoint(PASSIVE)') } catch {} }
const timer = setInterval(checkpoint, workerData.intervalMs)
parentPort.postMessage('ready')
parentPort.once('message', () => { clearInterval(timer); db.close(); parentPort.close() })
`

/** A running checkpointer; `stop` ends it (the connection checkpoints by itself again). */
export interface Checkpointer {
  stop(): Promise<void>
}

/** Starts checkpointing the database file at `path` (WAL mode) in a worker; `database` stops its automatic checkpoints once the worker is ready. */
export async function startCheckpointer (database: SqliteDatabase, path: string, intervalMs = CHECKPOINT_INTERVAL_MS): Promise<Checkpointer> {
  const worker = new Worker(WORKER, { eval: true, workerData: { driver: BETTER_SQLITE3, path, intervalMs } })
  const autocheckpoint = (pages: number) => { if (database.open) database.pragma(`wal_autocheckpoint = ${pages}`) }
  let running = true
  const exited = new Promise<void>((resolve) => {
    worker.once('exit', () => {
      running = false
      autocheckpoint(AUTOCHECKPOINT_PAGES)
      resolve()
    })
  })
  // An error ends the worker ('exit' follows): the connection checkpoints by itself again.
  worker.on('error', () => {})
  const ready = await Promise.race([
    new Promise<boolean>((resolve) => worker.once('message', () => { resolve(true) })),
    exited.then(() => false)
  ])
  if (!ready) throw new Error('the checkpoint worker did not start')
  if (running) autocheckpoint(0)
  // It does not keep the process alive; close() stops it.
  worker.unref()
  return {
    stop: async () => {
      // Waited for: it must keep the process alive until it has closed its connection.
      worker.ref()
      if (running) worker.postMessage('stop')
      await exited
    }
  }
}
