/**
 * History retention on both databases: the newest HISTORY_MAX_PER_POOL records of
 * each pool stay (ties on timestamp broken by id, as the API lists them), records
 * older than HISTORY_MAX_AGE_DAYS go, a backlog larger than a batch (or than a
 * run's budget) is worked off, and `off` deletes nothing. Rows are inserted through
 * the repository, since rotating thousands of times through the API would be slow.
 */
import assert from 'node:assert/strict'
import { afterEach, describe, it } from 'node:test'
import { createPool, seededRandom } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, sqlite, type TestApp } from '../../test/helpers.js'
import { createHistoryRetention } from './history-retention.js'
import { insertHistory } from './history.repository.js'

const NOW = new Date('2026-03-01T12:00:00.000Z')
const DAY_MS = 24 * 60 * 60 * 1000

/** An ISO timestamp `ms` milliseconds before NOW. */
const ago = (ms: number) => new Date(NOW.getTime() - ms).toISOString()

interface Row { id: number, timestamp: string }

/** Inserts one record per timestamp, in a shuffled order so that ids do not follow timestamps. */
async function insertRows (t: TestApp, poolId: number, timestamps: readonly string[], seed = 1): Promise<void> {
  const random = seededRandom(seed)
  const shuffled = timestamps.map((timestamp) => ({ timestamp, key: random() })).sort((a, b) => a.key - b.key)
  await t.database.transact(function * (db) {
    for (const { timestamp } of shuffled) {
      yield * insertHistory(db, { pool_id: poolId, from_provider_id: null, to_provider_id: null, reason: 'test', success: 1, notes: null, timestamp, until: null })
    }
  })
}

/** The pool's records in list order (timestamp, then id, descending), sorted here rather than by the database. */
async function rowsOf (t: TestApp, poolId: number): Promise<Row[]> {
  const rows = await t.database.db.selectFrom('rotation_history').select(['id', 'timestamp']).where('pool_id', '=', poolId).execute()
  return rows.sort((a, b) => a.timestamp === b.timestamp ? b.id - a.id : a.timestamp < b.timestamp ? 1 : -1)
}

async function changeSeqOf (t: TestApp, poolId: number): Promise<number> {
  const row = await t.database.db.selectFrom('pools').select('change_seq').where('id', '=', poolId).executeTakeFirstOrThrow()
  return Number(row.change_seq)
}

/** `count` timestamps, `perTimestamp` records sharing each, one second apart, the newest `newestAgoMs` before NOW. */
function tiedTimestamps (count: number, perTimestamp: number, newestAgoMs = 0): string[] {
  return Array.from({ length: count }, (_, i) => ago(newestAgoMs + Math.floor(i / perTimestamp) * 1000))
}

for (const dialect of dialects) {
  describeOn(dialect, 'history retention', () => {
    let t: TestApp | undefined
    afterEach(async () => { await t?.close(); t = undefined })

    /** A test app (limits off unless `env` sets them) with pools named by `names`. */
    async function setUp<const N extends readonly string[]> (
      names: N, env: Record<string, string> = { HISTORY_MAX_PER_POOL: 'off' }
    ): Promise<{ app: TestApp, pools: { [K in keyof N]: number } }> {
      const app = await buildTestApp(dialect, { now: () => NOW }, env)
      t = app
      const pools: number[] = []
      for (const name of names) pools.push(await createPool(app, name))
      return { app, pools: pools as { [K in keyof N]: number } }
    }

    describe('by count', () => {
      it('keeps exactly the newest N of each pool, ties on timestamp broken by id', async () => {
        const { app, pools: [big, small, other] } = await setUp(['big', 'small', 'other'])
        // Three records per timestamp: the 10th newest is the middle one of a tie.
        await insertRows(app, big, tiedTimestamps(30, 3), 1)
        await insertRows(app, small, tiedTimestamps(6, 2), 2)
        await insertRows(app, other, tiedTimestamps(14, 1), 3)
        const before = { big: await rowsOf(app, big), small: await rowsOf(app, small), other: await rowsOf(app, other) }
        // The tie is really split: the newest 10 end inside a group of three.
        assert.equal(before.big[9]?.timestamp, before.big[10]?.timestamp)

        const retention = createHistoryRetention({ database: app.database, now: () => NOW, maxPerPool: 10, maxAgeDays: null })
        assert.deepEqual(await retention.prune(), { deleted: 20 + 4, finished: true })

        assert.deepEqual(await rowsOf(app, big), before.big.slice(0, 10))
        assert.deepEqual(await rowsOf(app, small), before.small)
        assert.deepEqual(await rowsOf(app, other), before.other.slice(0, 10))
        // Nothing more to do on the next run.
        assert.deepEqual(await retention.prune(), { deleted: 0, finished: true })
      })

      it('works off a backlog larger than one batch in one run', async () => {
        const { app, pools: [poolId] } = await setUp(['busy'])
        await insertRows(app, poolId, tiedTimestamps(2500, 2))
        const before = await rowsOf(app, poolId)
        const retention = createHistoryRetention({ database: app.database, now: () => NOW, maxPerPool: 10, maxAgeDays: null })
        assert.deepEqual(await retention.prune(), { deleted: 2490, finished: true })
        assert.deepEqual(await rowsOf(app, poolId), before.slice(0, 10))
      })

      it('stops after its budget of batches and goes on at the next run', async () => {
        const { app, pools: [first, second] } = await setUp(['first', 'second'])
        await insertRows(app, first, tiedTimestamps(35, 1))
        await insertRows(app, second, tiedTimestamps(25, 1))
        const expected = [(await rowsOf(app, first)).slice(0, 10), (await rowsOf(app, second)).slice(0, 10)]
        const retention = createHistoryRetention({ database: app.database, now: () => NOW, maxPerPool: 10, maxAgeDays: null, batchSize: 10, maxBatchesPerRun: 2 })
        assert.deepEqual(await retention.prune(), { deleted: 20, finished: false })
        assert.equal((await rowsOf(app, first)).length, 15)
        assert.equal((await rowsOf(app, second)).length, 25)
        // The first pool's last 5, then the second's 15 over two batches: the budget ends the run again.
        assert.deepEqual(await retention.prune(), { deleted: 15, finished: false })
        assert.deepEqual(await retention.prune(), { deleted: 5, finished: true })
        assert.deepEqual([await rowsOf(app, first), await rowsOf(app, second)], expected)
      })

      it('visits a pool again once it has new records', async () => {
        const { app, pools: [poolId] } = await setUp(['p'])
        await insertRows(app, poolId, tiedTimestamps(10, 1, 60_000))
        const retention = createHistoryRetention({ database: app.database, now: () => NOW, maxPerPool: 10, maxAgeDays: null })
        assert.deepEqual(await retention.prune(), { deleted: 0, finished: true })
        await insertRows(app, poolId, tiedTimestamps(3, 1))
        const expected = (await rowsOf(app, poolId)).slice(0, 10)
        assert.deepEqual(await retention.prune(), { deleted: 3, finished: true })
        assert.deepEqual(await rowsOf(app, poolId), expected)
      })
    })

    describe('by age', () => {
      it('deletes exactly the records older than the cutoff, in every pool, and marks those pools changed', async () => {
        const { app, pools: [a, b, c] } = await setUp(['a', 'b', 'c'])
        const cutoff = 7 * DAY_MS
        await insertRows(app, a, [ago(cutoff + 1), ago(cutoff + 1), ago(cutoff), ago(cutoff - 1), ago(0), ago(30 * DAY_MS)])
        await insertRows(app, b, [ago(cutoff + 5000), ago(1000)])
        await insertRows(app, c, [ago(cutoff), ago(1)])
        const before = { a: await rowsOf(app, a), b: await rowsOf(app, b), c: await rowsOf(app, c) }
        const seq = { a: await changeSeqOf(app, a), b: await changeSeqOf(app, b), c: await changeSeqOf(app, c) }

        const retention = createHistoryRetention({ database: app.database, now: () => NOW, maxPerPool: null, maxAgeDays: 7 })
        assert.deepEqual(await retention.prune(), { deleted: 3 + 1, finished: true })

        const keep = (rows: Row[]) => rows.filter((row) => row.timestamp >= ago(cutoff))
        assert.deepEqual(await rowsOf(app, a), keep(before.a))
        assert.equal(keep(before.a).length, 3)
        assert.deepEqual(await rowsOf(app, b), keep(before.b))
        assert.deepEqual(await rowsOf(app, c), before.c)
        // Status records show the newest records: the pruned pools' must be rebuilt.
        assert.ok(await changeSeqOf(app, a) > seq.a)
        assert.ok(await changeSeqOf(app, b) > seq.b)
        assert.equal(await changeSeqOf(app, c), seq.c)
        const status = await app.request({ method: 'GET', url: `/api/pools/${a}` })
        assert.deepEqual(status.body.recent_rotations.map((r: { id: number }) => r.id), keep(before.a).map((row) => row.id))
      })

      it('works off an old backlog larger than one batch, then applies the count limit', async () => {
        const { app, pools: [poolId] } = await setUp(['p'])
        await insertRows(app, poolId, [...tiedTimestamps(1200, 3, 2 * DAY_MS), ...tiedTimestamps(20, 1)])
        const expected = (await rowsOf(app, poolId)).slice(0, 15)
        const retention = createHistoryRetention({ database: app.database, now: () => NOW, maxPerPool: 15, maxAgeDays: 1 })
        assert.deepEqual(await retention.prune(), { deleted: 1205, finished: true })
        assert.deepEqual(await rowsOf(app, poolId), expected)
      })
    })

    describe('as housekeeping', () => {
      it('GET /api/pools/{id}/history answers the records kept', async () => {
        const { app, pools: [poolId, other] } = await setUp(['kept', 'other'], { HISTORY_MAX_PER_POOL: '10', HISTORY_MAX_AGE_DAYS: '30' })
        await insertRows(app, poolId, [...tiedTimestamps(40, 4), ago(31 * DAY_MS)])
        await insertRows(app, other, [ago(29 * DAY_MS), ago(31 * DAY_MS)])
        const expected = (await rowsOf(app, poolId)).slice(0, 10)
        await app.app.runHousekeeping()
        const res = await app.request({ method: 'GET', url: `/api/pools/${poolId}/history?limit=1000` })
        assert.equal(res.status, 200)
        assert.deepEqual(res.body.history.map((r: { id: number, timestamp: string }) => ({ id: r.id, timestamp: r.timestamp })), expected)
        const otherRes = await app.request({ method: 'GET', url: `/api/pools/${other}/history` })
        assert.deepEqual(otherRes.body.history.map((r: { timestamp: string }) => r.timestamp), [ago(29 * DAY_MS)])
      })

      it('keeps 10,000 records per pool by default', async () => {
        const { app, pools: [poolId] } = await setUp(['p'], {})
        await insertRows(app, poolId, tiedTimestamps(10_005, 1))
        const expected = (await rowsOf(app, poolId)).slice(0, 10_000)
        await app.app.runHousekeeping()
        assert.deepEqual(await rowsOf(app, poolId), expected)
      })

      it('deletes nothing when both limits are off', async () => {
        const { app, pools: [poolId] } = await setUp(['p'], { HISTORY_MAX_PER_POOL: 'off', HISTORY_MAX_AGE_DAYS: 'off' })
        await insertRows(app, poolId, tiedTimestamps(30, 1, 365 * DAY_MS))
        const before = await rowsOf(app, poolId)
        await app.app.runHousekeeping()
        assert.deepEqual(await rowsOf(app, poolId), before)
        const retention = createHistoryRetention({ database: app.database, now: () => NOW, maxPerPool: null, maxAgeDays: null })
        assert.deepEqual(await retention.prune(), { deleted: 0, finished: true })
        assert.equal((await rowsOf(app, poolId)).length, 30)
      })
    })
  })
}

describe('createHistoryRetention', () => {
  it('runs one prune at a time: a call during a run waits for it', async () => {
    const t = await buildTestApp(sqlite, { now: () => NOW }, { HISTORY_MAX_PER_POOL: 'off' })
    try {
      const poolId = await createPool(t, 'p')
      await insertRows(t, poolId, tiedTimestamps(50, 1))
      const retention = createHistoryRetention({ database: t.database, now: () => NOW, maxPerPool: 10, maxAgeDays: null, batchSize: 10 })
      const [first, second] = await Promise.all([retention.prune(), retention.prune()])
      assert.deepEqual(first, { deleted: 40, finished: true })
      assert.equal(second, first)
      assert.equal((await rowsOf(t, poolId)).length, 10)
    } finally {
      await t.close()
    }
  })
})
