/**
 * Starting beside schemas that others create and drop: the migrator looks at and
 * locks its own schema only (the cause of test runs' "schema … does not exist"
 * failures when several shared one server, and of a start failing the same way
 * beside another application's schema changes).
 */
import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import pg from 'pg'
import { createPostgresSchema, postgres, type TestDatabase } from '../../test/helpers.js'
import { createDb } from './create-db.js'

describe('[postgres] migrating beside other schemas', { skip: postgres.skip ?? false }, () => {
  const made: TestDatabase[] = []
  after(async () => { for (const database of made) await database.drop() })

  /** Creates and drops schemas, each with a few tables, on `connections` connections until `stop` says so. */
  async function churn (connections: number, stop: () => boolean): Promise<number> {
    let cycles = 0
    await Promise.all(Array.from({ length: connections }, async (_, lane) => {
      const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL })
      await client.connect()
      try {
        while (!stop()) {
          const name = `sourcepool_churn_${process.pid}_${lane}`
          await client.query(`create schema ${name}`)
          for (let t = 0; t < 4; t++) await client.query(`create table ${name}.t${t} (id serial primary key, a text, b text)`)
          await client.query(`drop schema ${name} cascade`)
          cycles++
        }
      } finally {
        await client.query(`drop schema if exists sourcepool_churn_${process.pid}_${lane} cascade`)
        await client.end()
      }
    }))
    return cycles
  }

  it('starts while other sessions create and drop schemas beside it', async () => {
    let done = false
    const churning = churn(3, () => done)
    const failures: string[] = []
    try {
      for (let i = 0; i < 4; i++) {
        const ours = await createPostgresSchema()
        made.push(ours)
        // Kysely's own migrator listed every schema's tables (pg_get_serial_sequence on
        // each) and failed with `schema "…" does not exist` when one vanished meanwhile.
        try {
          await (await createDb(ours.url)).close()
        } catch (error) {
          failures.push((error as Error).message)
        }
        await ours.drop()
      }
    } finally {
      done = true
    }
    assert.ok(await churning > 0, 'the other sessions churned')
    assert.deepEqual(failures, [])
  })
})
