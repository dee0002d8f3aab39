/**
 * A process of ours that stops inside a transaction (paused, starved, cut off) must
 * not hold its row locks for ever: every session it opens carries PostgreSQL's
 * idle_in_transaction_session_timeout, so the server ends it and the others go on.
 * This is what stalled a WORKERS=2 purge in CI: the stopped worker held its pool's
 * row, and the other's flush before the API call waited on it.
 */
import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import { sql } from 'kysely'
import { createPostgresSchema, postgres, sleep, type TestDatabase } from '../../test/helpers.js'
import { createDb, IDLE_IN_TRANSACTION_MS, type DbHandle } from './create-db.js'

describe('[postgres] a session idle inside a transaction', { skip: postgres.skip ?? false }, () => {
  const made: TestDatabase[] = []
  const handles: DbHandle[] = []
  after(async () => {
    for (const handle of handles) await handle.close()
    for (const database of made) await database.drop()
  })

  async function open (options?: string): Promise<DbHandle> {
    const database = await createPostgresSchema()
    made.push(database)
    const url = new URL(database.url)
    if (options !== undefined) url.searchParams.set('options', options)
    const handle = await createDb(url.toString())
    handles.push(handle)
    return handle
  }

  it(`is ended by the server after ${IDLE_IN_TRANSACTION_MS} ms on every connection of the pool`, async () => {
    const handle = await open()
    // Several connections at once: each one the pool opens is set, not only the first.
    const shown = await Promise.all(Array.from({ length: 4 }, async () =>
      await handle.db.transaction().execute(async (trx) => {
        const { rows } = await sql<{ value: string }>`select current_setting('idle_in_transaction_session_timeout') as value, pg_sleep(0.05)`.execute(trx)
        return rows[0]?.value
      })))
    assert.deepEqual(shown, Array(4).fill(`${IDLE_IN_TRANSACTION_MS / 1000}s`))
  })

  it("keeps the URL's own value, and releases a stopped transaction's row locks to another session without crashing this process", async () => {
    const stuck = await open('-c idle_in_transaction_session_timeout=300')
    const { rows } = await sql<{ value: string }>`select current_setting('idle_in_transaction_session_timeout') as value`.execute(stuck.db)
    assert.equal(rows[0]?.value, '300ms')
    const pool = await stuck.db.insertInto('pools').values({ name: 'locked', category: 'rpc', rotation_strategy: 'round_robin', created_at: 'now', updated_at: 'now' } as never).returning('id').executeTakeFirstOrThrow()

    // A second instance on the same schema, with the default.
    const other = await createDb(new URL(made[made.length - 1]?.url as string).toString())
    handles.push(other)
    let locked!: () => void
    const hasLock = new Promise<void>((resolve) => { locked = resolve })
    const stopped = stuck.db.transaction().execute(async (trx) => {
      await sql`select id from pools where id = ${pool.id} for update`.execute(trx)
      locked()
      await sleep(1500) // the process "stops" between two statements
      await sql`update pools set name = 'never' where id = ${pool.id}`.execute(trx)
    })
    const outcome = stopped.then(() => 'committed', (error: unknown) => error)
    await hasLock
    // Without the timeout this waits for the sleep, and the stuck transaction commits.
    await other.db.updateTable('pools').set({ name: 'moved on' } as never).where('id', '=', pool.id).execute()
    assert.notEqual(await outcome, 'committed')
    const row = await other.db.selectFrom('pools').select('name').where('id', '=', pool.id).executeTakeFirstOrThrow()
    assert.equal(row.name, 'moved on')
    // The stuck instance's pool goes on with a new connection.
    assert.equal((await sql<{ one: number }>`select 1 as one`.execute(stuck.db)).rows[0]?.one, 1)
  })
})
