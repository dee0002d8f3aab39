/**
 * A served SQLite file is checkpointed by a worker thread (db/checkpointer.ts), not
 * inside the COMMIT that passes SQLite's automatic threshold: what a large write
 * left in the WAL reaches the database file within about CHECKPOINT_INTERVAL_MS,
 * well before the 10,000 pages after which the connection would do it itself.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { CHECKPOINT_INTERVAL_MS } from './checkpointer.js'
import { createDb } from './create-db.js'
import { execute } from './work.js'
import { sleep } from '../../test/helpers.js'

describe('SQLite checkpoints off the event loop', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sourcepool-checkpoint-'))
  after(() => { rmSync(dir, { recursive: true, force: true }) })

  it('copies a large write from the WAL into the database file within about an interval, and stops on close', async () => {
    const path = join(dir, 'pools.db')
    const database = await createDb(`sqlite:${path}`)
    try {
      const before = statSync(path).size
      // About 4 MB of rows: 1,000 pages, a tenth of SQLite's own threshold here.
      const description = 'x'.repeat(4000)
      await database.transact(function * (db) {
        for (let i = 0; i < 1000; i++) {
          yield * execute(db.insertInto('providers').values({ name: `p${i}`, description, created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' }))
        }
      })
      let size = statSync(path).size
      for (let waited = 0; size < before + 4_000_000 && waited < 5 * CHECKPOINT_INTERVAL_MS; waited += 100) {
        await sleep(100)
        size = statSync(path).size
      }
      assert.ok(size >= before + 4_000_000, `the database file is ${size} bytes (${before} before the write): not checkpointed`)
    } finally {
      await database.close()
    }
  })
})
