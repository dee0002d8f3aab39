/**
 * PostgreSQL aborts one of two transactions that wait for each other (a deadlock)
 * and, under stricter isolation, a transaction that cannot be serialised; run
 * again, such work usually succeeds. transact (create-db.ts) does so a few times,
 * from a fresh generator, for those two SQLSTATEs only and only on PostgreSQL.
 * Here a real deadlock is made between two transactions, and the retry's bounds
 * are checked with statements that raise the SQLSTATEs themselves.
 */
import assert from 'node:assert/strict'
import { randomInt } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { sql, type Compilable } from 'kysely'
import { CONFLICT_RETRIES, createDb, type DbHandle } from './create-db.js'
import { isRetryableConflict } from './errors.js'
import type { Db } from './types.js'
import { execute, first, type Work } from './work.js'
import { createPostgresSchema, describeOn, postgres, sqlite, type TestDatabase } from '../../test/helpers.js'

/** A statement with no parameters, as work yields it. */
const raw = (db: Db, text: string): Compilable<unknown> => ({ compile: () => sql.raw(text).compile(db) })

/** Raises `sqlstate` from inside the transaction, as the server would. */
const raise = (db: Db, sqlstate: string) => raw(db, `DO $$ BEGIN RAISE EXCEPTION 'simulated ${sqlstate}' USING ERRCODE = '${sqlstate}'; END $$`)

/**
 * Waits (up to 10 s, then fails with a plain error) until another session holds the
 * transaction-level advisory lock `key` (0 < key < 2³¹: it is all in objid).
 */
const waitForAdvisoryLock = (db: Db, key: number) => raw(db, `DO $$ BEGIN
  FOR i IN 1..1000 LOOP
    IF EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND classid = 0 AND objid = ${key} AND objsubid = 1
               AND granted AND pid <> pg_backend_pid()) THEN RETURN; END IF;
    PERFORM pg_sleep(0.01);
  END LOOP;
  RAISE EXCEPTION 'barrier: the other transaction never took advisory lock ${key}';
END $$`)

const bump = (db: Db, id: number) => db.updateTable('pools').set((eb) => ({ total_rotations: eb('total_rotations', '+', 1) })).where('id', '=', id)

function * insertPool (db: Db, name: string): Work<number> {
  const row = yield * first(db.insertInto('pools').values({
    name, category: 'test', rotation_strategy: 'round_robin', enabled: 1, rotation_state: '{}', created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z'
  }).returning('id'))
  return (row as { id: number }).id
}

let names = 0
const uniqueName = () => `retry-pool-${++names}`

describe('isRetryableConflict', () => {
  it("is true for PostgreSQL's deadlock and serialization failure only", () => {
    assert.equal(isRetryableConflict({ code: '40P01' }), true)
    assert.equal(isRetryableConflict({ code: '40001' }), true)
    for (const other of [{ code: '23505' }, { code: '57P01' }, { code: 'SQLITE_BUSY' }, { code: 40001 }, {}, null, undefined, new Error('40P01')]) {
      assert.equal(isRetryableConflict(other), false, JSON.stringify(other))
    }
  })
})

describeOn(postgres, 'transact retries deadlocks and serialization failures', () => {
  let testDb: TestDatabase
  let database: DbHandle
  before(async () => {
    testDb = await createPostgresSchema()
    database = await createDb(testDb.url)
  })
  after(async () => {
    await database?.close()
    await testDb?.drop()
  })

  const totals = async (ids: number[]) => await database.read(function * (db) {
    const rows = yield * first(db.selectFrom('pools').select((eb) => eb.fn.sum<string>('total_rotations').as('sum')).where('id', 'in', ids))
    return Number(rows?.sum)
  })

  it('runs again, from a fresh generator, the transaction PostgreSQL aborted as a deadlock; both commit', { timeout: 60_000 }, async () => {
    const one = await database.transact((db) => insertPool(db, uniqueName()))
    const two = await database.transact((db) => insertPool(db, uniqueName()))
    const keyA = randomInt(1, 2 ** 31)
    const keyB = keyA === 2 ** 31 - 1 ? keyA - 1 : keyA + 1
    const calls = { a: 0, b: 0 }
    // Each locks its first pool, says so (an advisory lock), waits until the other has
    // said so too, then locks the other's pool: a cycle, on the first attempt only.
    function * lockBoth (db: Db, firstId: number, secondId: number, mine: number, theirs: number, attempt: number): Work<number> {
      yield * execute(bump(db, firstId))
      if (attempt === 1) {
        yield raw(db, `SELECT pg_advisory_xact_lock(${mine})`)
        yield waitForAdvisoryLock(db, theirs)
      }
      yield * execute(bump(db, secondId))
      return attempt
    }
    const settled = await Promise.allSettled([
      database.transact((db) => lockBoth(db, one, two, keyA, keyB, ++calls.a)),
      database.transact((db) => lockBoth(db, two, one, keyB, keyA, ++calls.b))
    ])
    assert.deepEqual(settled.map((s) => s.status), ['fulfilled', 'fulfilled'], String(settled.map((s) => s.status === 'rejected' ? s.reason : '')))
    // One of the two was chosen as the deadlock's victim and ran once more.
    assert.deepEqual([calls.a, calls.b].sort(), [1, 2])
    assert.deepEqual(settled.map((s) => (s as PromiseFulfilledResult<number>).value).sort(), [1, 2])
    // Each transaction added one to both pools; the aborted attempt added nothing.
    assert.equal(await totals([one]), 2)
    assert.equal(await totals([two]), 2)
  })

  it('runs again after a serialization failure (40001), the failed attempt rolled back', async () => {
    const id = await database.transact((db) => insertPool(db, uniqueName()))
    let calls = 0
    const result = await database.transact(function * (db) {
      const attempt = ++calls
      yield * execute(bump(db, id))
      if (attempt === 1) yield raise(db, '40001')
      return attempt
    })
    assert.equal(result, 2)
    assert.equal(calls, 2)
    assert.equal(await totals([id]), 1)
  })

  it('does not run again work that failed otherwise (a unique violation)', async () => {
    const name = uniqueName()
    await database.transact((db) => insertPool(db, name))
    let calls = 0
    await assert.rejects(database.transact(function * (db) {
      calls++
      return yield * insertPool(db, name)
    }), (error: { code?: string }) => error.code === '23505')
    assert.equal(calls, 1)
  })

  it(`gives up after ${CONFLICT_RETRIES} retries with the last deadlock error as the server sent it`, async () => {
    const id = await database.transact((db) => insertPool(db, uniqueName()))
    let calls = 0
    await assert.rejects(database.transact(function * (db) {
      calls++
      yield * execute(bump(db, id))
      yield raise(db, '40P01')
    }), (error: Error & { code?: string }) => {
      assert.equal(error.constructor.name, 'DatabaseError')
      assert.equal(error.code, '40P01')
      assert.equal(error.message, 'simulated 40P01')
      return true
    })
    assert.equal(calls, 1 + CONFLICT_RETRIES)
    assert.equal(await totals([id]), 0)
  })
})

describeOn(sqlite, 'transact does not retry', () => {
  let database: DbHandle
  before(async () => { database = await createDb('sqlite::memory:') })
  after(async () => { await database?.close() })

  it('runs work that throws a deadlock code once', async () => {
    let calls = 0
    await assert.rejects(database.transact(function * (db) {
      calls++
      yield * insertPool(db, uniqueName())
      throw Object.assign(new Error('not from SQLite'), { code: '40P01' })
    }), { code: '40P01' })
    assert.equal(calls, 1)
    assert.equal(await database.read(function * (db) {
      return (yield * first(db.selectFrom('pools').select((eb) => eb.fn.countAll<number>().as('n'))))?.n
    }), 0)
  })
})
