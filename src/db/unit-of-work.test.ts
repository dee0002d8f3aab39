/**
 * A unit of work collects its effects (unit-of-work.ts): what a write declares is
 * bumped once in its transaction and told once after its commit; nothing of a
 * write rolled back, nothing twice when PostgreSQL runs a transaction again after
 * a real serialization failure, nothing of one write of a SQLite group commit that
 * rolls back alone. Reads, and a runner given nowhere to tell, refuse declarations.
 */
import assert from 'node:assert/strict'
import { randomInt } from 'node:crypto'
import { after, before, it } from 'node:test'
import { sql, type Compilable } from 'kysely'
import { createDb, type DbHandle } from './create-db.js'
import type { Db } from './types.js'
import { touched, unitOfWork, type ChangeSink } from './unit-of-work.js'
import { execute, first, type Work } from './work.js'
import { describeOn, dialects, postgres, sleep, type TestDatabase } from '../../test/helpers.js'

/** A sink that writes down what it is told, in order. */
function recorder (): ChangeSink & { told: string[] } {
  const told: string[] = []
  return { told, pool: (id) => { told.push(`pool ${id}`) }, provider: (id) => { told.push(`provider ${id}`) } }
}

/** A statement with no parameters, as work yields it. */
const raw = (db: Db, text: string): Compilable<unknown> => ({ compile: () => sql.raw(text).compile(db) })

const AT = '2026-01-01T00:00:00.000Z'
let names = 0

function * insertPool (db: Db): Work<number> {
  const row = yield * first(db.insertInto('pools').values({
    name: `uow-pool-${++names}`, category: 'test', rotation_strategy: 'round_robin', enabled: 1, rotation_state: '{}', created_at: AT, updated_at: AT
  }).returning('id'))
  return (row as { id: number }).id
}

function * insertProvider (db: Db): Work<number> {
  const row = yield * first(db.insertInto('providers').values({ name: `uow-provider-${++names}`, created_at: AT, updated_at: AT }).returning('id'))
  return (row as { id: number }).id
}

function * addMember (db: Db, poolId: number, providerId: number): Work<void> {
  yield * execute(db.insertInto('pool_members').values({ pool_id: poolId, provider_id: providerId, priority: 1, weight: 1, enabled: 1, created_at: AT }))
}

for (const dialect of dialects) {
  describeOn(dialect, 'a unit of work collects its effects', () => {
    let testDb: TestDatabase
    let database: DbHandle
    before(async () => {
      testDb = await dialect.create()
      database = await createDb(testDb.url)
    })
    after(async () => {
      await database?.close()
      await testDb?.drop()
    })

    const seqOf = async (id: number) => Number((await database.read((db) => first(db.selectFrom('pools').select('change_seq').where('id', '=', id))))?.change_seq)
    const newPool = async () => await database.transact(insertPool)

    it('bumps a pool once however often it is declared, and tells it once after the commit', async () => {
      const [a, b] = [await newPool(), await newPool()]
      const [seqA, seqB] = [await seqOf(a), await seqOf(b)]
      const sink = recorder()
      const answered = await unitOfWork(database, sink).transact(function * (db) {
        yield * touched(db, { pools: [a] })
        yield * touched(db, { pools: [b, a] })
        yield * touched(db, { pools: [a] })
        // Told before the commit? Nothing yet.
        assert.deepEqual(sink.told, [])
        return 'done'
      })
      assert.equal(answered, 'done')
      assert.deepEqual(sink.told, [`pool ${a}`, `pool ${b}`])
      assert.equal(await seqOf(a), seqA + 1)
      assert.equal(await seqOf(b), seqB + 1)
    })

    it("bumps the pools a provider serves (or shows) and tells only the provider; a pool it reaches is bumped once with the unit's own", async () => {
      const [served, shown, apart] = [await newPool(), await newPool(), await newPool()]
      const provider = await database.transact(function * (db) {
        const id = yield * insertProvider(db)
        yield * addMember(db, served, id)
        yield * execute(db.updateTable('pools').set({ current_provider_id: id }).where('id', '=', shown))
        return id
      })
      const before = await Promise.all([served, shown, apart].map(seqOf))
      const sink = recorder()
      const reached = await unitOfWork(database, sink).transact(function * (db) {
        const pools = yield * touched(db, { providers: [provider] })
        yield * touched(db, { pools: [served] })
        return pools
      })
      assert.deepEqual(reached, [served])
      assert.deepEqual(sink.told, [`provider ${provider}`, `pool ${served}`])
      assert.deepEqual(await Promise.all([served, shown, apart].map(seqOf)), [before[0] as number + 1, before[1], before[2]])

      const shows = recorder()
      await unitOfWork(database, shows).transact((db) => touched(db, { providers: [provider], reach: 'shows' }))
      assert.deepEqual(shows.told, [`provider ${provider}`])
      assert.deepEqual(await Promise.all([served, shown, apart].map(seqOf)), [before[0] as number + 2, before[1] as number + 1, before[2]])
    })

    it('tells created and deleted pools without bumping anything', async () => {
      const sink = recorder()
      const created = await unitOfWork(database, sink).transact(function * (db) {
        const id = yield * insertPool(db)
        yield * touched(db, { createdPools: [id] })
        return id
      })
      assert.equal(await seqOf(created), 0)
      await unitOfWork(database, sink).transact(function * (db) {
        yield * execute(db.deleteFrom('pools').where('id', '=', created))
        yield * touched(db, { deletedPools: [created] })
      })
      assert.deepEqual(sink.told, [`pool ${created}`, `pool ${created}`])
    })

    it('bumps nothing and tells nothing of a write that throws after declaring', async () => {
      const pool = await newPool()
      const provider = await database.transact(function * (db) {
        const id = yield * insertProvider(db)
        yield * addMember(db, pool, id)
        return id
      })
      const seq = await seqOf(pool)
      const sink = recorder()
      await assert.rejects(unitOfWork(database, sink).transact(function * (db) {
        yield * touched(db, { pools: [pool] })
        yield * touched(db, { providers: [provider] })
        throw new Error('changed my mind')
      }), /changed my mind/)
      assert.deepEqual(sink.told, [])
      assert.equal(await seqOf(pool), seq)
    })

    it('tells the writes of one group commit that committed, not the one rolled back alone', async () => {
      const [kept, dropped] = [await newPool(), await newPool()]
      const [seqKept, seqDropped] = [await seqOf(kept), await seqOf(dropped)]
      const sink = recorder()
      const units = unitOfWork(database, sink)
      // Asked in one turn of the event loop: on SQLite, one transaction with a savepoint each.
      const outcomes = await Promise.allSettled([
        units.transact((db) => touched(db, { pools: [kept] })),
        units.transact(function * (db) {
          yield * touched(db, { pools: [dropped] })
          throw new Error('rolled back alone')
        })
      ])
      assert.deepEqual(outcomes.map((o) => o.status), ['fulfilled', 'rejected'])
      assert.deepEqual(sink.told, [`pool ${kept}`])
      assert.equal(await seqOf(kept), seqKept + 1)
      assert.equal(await seqOf(dropped), seqDropped)
    })

    it('refuses a declaration in a read, and in a transact with nowhere to tell it, writing nothing', async () => {
      const pool = await newPool()
      const seq = await seqOf(pool)
      await assert.rejects(database.read((db) => touched(db, { pools: [pool] })), /declared a change where none can be told/)
      await assert.rejects(database.transact((db) => touched(db, { pools: [pool] })), /declared a change where none can be told/)
      assert.equal(await seqOf(pool), seq)
    })

    it('tells once through a runner wrapped twice with the same sink', async () => {
      const pool = await newPool()
      const sink = recorder()
      const units = unitOfWork(unitOfWork(database, sink), sink)
      await units.transact((db) => touched(db, { pools: [pool] }))
      assert.deepEqual(sink.told, [`pool ${pool}`])
    })
  })
}

describeOn(postgres, 'a unit of work run again after a serialization failure', () => {
  let testDb: TestDatabase
  let database: DbHandle
  before(async () => {
    testDb = await postgres.create()
    database = await createDb(testDb.url)
  })
  after(async () => {
    await database?.close()
    await testDb?.drop()
  })

  const seqOf = async (id: number) => Number((await database.db.selectFrom('pools').select('change_seq').where('id', '=', id).executeTakeFirstOrThrow()).change_seq)

  /** Waits (10 s at most) until a session waits for the advisory lock `key` (0 < key < 2³¹). */
  async function untilWaitedFor (key: number): Promise<void> {
    for (let i = 0; i < 1000; i++) {
      const { rows } = await sql<{ n: string }>`select count(*) as n from pg_locks
        where locktype = 'advisory' and classid = 0 and objid = ${key} and objsubid = 1 and not granted`.execute(database.db)
      if (Number(rows[0]?.n) > 0) return
      await sleep(10)
    }
    throw new Error(`nobody ever waited for advisory lock ${key}`)
  }

  it('tells its effects once and bumps each pool once, those of the failed attempt dropped', { timeout: 60_000 }, async () => {
    const [other, contested] = [await database.transact(insertPool), await database.transact(insertPool)]
    const [seqOther, seqContested] = [await seqOf(other), await seqOf(contested)]
    const key = randomInt(1, 2 ** 31)
    const sink = recorder()
    let attempts = 0
    // The first attempt takes its snapshot, declares `other` touched, then waits for the
    // lock the test holds while another transaction bumps `contested` and commits: its
    // own bump of `contested` then fails with 40001, and the runner runs it again.
    const work = function * (db: Db): Work<number> {
      const attempt = ++attempts
      yield raw(db, 'SET TRANSACTION ISOLATION LEVEL REPEATABLE READ')
      yield * first(db.selectFrom('pools').select('change_seq').where('id', '=', contested))
      yield * touched(db, { pools: [other] })
      yield raw(db, `SELECT pg_advisory_xact_lock(${key})`)
      yield * touched(db, { pools: [contested] })
      return attempt
    }
    let answered: number | undefined
    await database.db.connection().execute(async (holder) => {
      await sql`select pg_advisory_lock(${key})`.execute(holder)
      const writing = unitOfWork(database, sink).transact(work).then((value) => ({ value }), (error: unknown) => ({ error }))
      try {
        await untilWaitedFor(key)
        await database.db.updateTable('pools').set((eb) => ({ change_seq: eb('change_seq', '+', 1) })).where('id', '=', contested).execute()
      } finally {
        await sql`select pg_advisory_unlock(${key})`.execute(holder)
      }
      const outcome = await writing
      if ('error' in outcome) throw outcome.error
      answered = outcome.value
    })
    // Run again (only a deadlock or a serialization failure is), and committed the second time.
    assert.equal(answered, 2)
    assert.equal(attempts, 2)
    assert.deepEqual(sink.told, [`pool ${other}`, `pool ${contested}`])
    assert.equal(await seqOf(other), seqOther + 1)
    // The other transaction's bump, and this one's, once.
    assert.equal(await seqOf(contested), seqContested + 2)
  })
})
