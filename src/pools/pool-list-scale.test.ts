/**
 * The whole pool list at scale (read-model.ts): after a change it is the same bytes
 * as a list built afresh, with only what changed rebuilt; thousands of stale records
 * are rebuilt in slices, so /healthz is answered before the list is done and no one
 * read rebuilds them all; concurrent requests get the same records; a request made
 * after a write sees it, and a write touching two pools never shows in one of them
 * only, even when it commits while slices run.
 */
import assert from 'node:assert/strict'
import { afterEach, it } from 'node:test'
import type { InjectOptions } from 'fastify'
import { buildApp } from '../app.js'
import { loadConfig } from '../config.js'
import { createDb, type DbHandle } from '../db/create-db.js'
import type { Db } from '../db/types.js'
import { execute, type Work } from '../db/work.js'
import { describeOn, dialects, fastifyBytes, type TestDatabase } from '../../test/helpers.js'
import { buildPoolStatuses, toPoolSummary } from './pool-status.js'
import { listPools } from './pool.repository.js'
import { PoolList } from './pool.schemas.js'
import { CHECK_REBUILDS, SEGMENT_IDS } from './read-model.js'
import { COPY_MAX } from './reply-buffers.js'

/** The reads the app made: statements in all, the most in one read, and a hook run as the next read starts. */
interface ReadLog {
  statements: number
  mostInOneRead: number
  onNextRead: (() => void) | undefined
}

interface ScaleApp {
  readonly handle: DbHandle
  readonly log: ReadLog
  inject(options: InjectOptions): Promise<{ status: number, body: string, headers: Record<string, unknown> }>
  close(): Promise<void>
}

/** The production app over a database whose reads are counted (statements per read). */
async function scaleApp (dialect: (typeof dialects)[number], now: () => Date): Promise<ScaleApp> {
  const testDb: TestDatabase = await dialect.create()
  const handle = await createDb(testDb.url)
  const log: ReadLog = { statements: 0, mostInOneRead: 0, onNextRead: undefined }
  const read: DbHandle['read'] = async <T>(work: (db: Db) => Work<T>) => {
    const hook = log.onNextRead
    log.onNextRead = undefined
    hook?.()
    let statements = 0
    const counted = (db: Db): Work<T> => (function * () {
      const inner = work(db)
      let step = inner.next()
      while (step.done !== true) {
        statements++
        log.statements++
        step = inner.next(yield step.value)
      }
      return step.value
    })()
    try {
      return await handle.read(counted)
    } finally {
      log.mostInOneRead = Math.max(log.mostInOneRead, statements)
    }
  }
  const app = await buildApp(loadConfig({ DATABASE_URL: testDb.url, LOG_LEVEL: 'silent' }), { logger: false, database: { ...handle, read }, now, healthCheckTimer: false })
  await app.ready()
  return {
    handle,
    log,
    inject: async (options) => {
      const res = await app.inject(options)
      return { status: res.statusCode, body: res.body, headers: res.headers }
    },
    close: async () => {
      await app.close()
      await handle.close()
      await testDb.drop()
    }
  }
}

/** `pools` pools of 3 members each among 20 providers, by direct inserts (fast). */
async function seed (handle: DbHandle, pools: number, at: string): Promise<void> {
  await handle.transact(function * (db) {
    yield * execute(db.insertInto('providers').values(Array.from({ length: 20 }, (_, i) => ({ name: `provider-${i}`, category: 'c', created_at: at, updated_at: at }))))
  })
  const providers = await handle.read(function * (db) { return (yield db.selectFrom('providers').select('id').orderBy('id')) as Array<{ id: number }> })
  for (let from = 0; from < pools; from += 500) {
    const count = Math.min(500, pools - from)
    await handle.transact(function * (db) {
      yield * execute(db.insertInto('pools').values(Array.from({ length: count }, (_, i) => ({
        name: `pool-${from + i}`, category: 'c', description: `number ${from + i}`, rotation_strategy: 'round_robin', enabled: 1, created_at: at, updated_at: at, current_provider_id: null, last_rotation: null, rotation_state: '{}'
      }))))
    })
  }
  const ids = await handle.read(function * (db) { return (yield db.selectFrom('pools').select('id').orderBy('id')) as Array<{ id: number }> })
  for (let from = 0; from < ids.length; from += 500) {
    const members = ids.slice(from, from + 500).flatMap(({ id }, i) => [0, 1, 2].map((k) => ({
      pool_id: id, provider_id: (providers[(from + i + k) % providers.length] as { id: number }).id, priority: k, weight: 1, enabled: 1, created_at: at
    })))
    await handle.transact(function * (db) { yield * execute(db.insertInto('pool_members').values(members)) })
  }
}

/** Every pool changed by another process (as rotations spread over all pools): each record reads differently. */
async function changeEveryPool (handle: DbHandle): Promise<void> {
  await handle.transact(function * (db) {
    yield * execute(db.updateTable('pools').set((eb) => ({ total_rotations: eb('total_rotations', '+', 1), change_seq: eb('change_seq', '+', 1) })))
  })
}

/** The list built afresh from the database, as Fastify would have written it. */
async function freshList (handle: DbHandle, at: Date): Promise<string> {
  const pools = await handle.read(function * (db) { return yield * buildPoolStatuses(db, yield * listPools(db), at) })
  return await fastifyBytes(PoolList, { pools, total: pools.length, timestamp: at.toISOString() })
}

/** The answer without its timestamp. */
const records = (body: string) => body.slice(0, body.lastIndexOf(',"timestamp":'))

for (const dialect of dialects) {
  describeOn(dialect, 'GET /api/pools at scale', () => {
    const clock = Date.parse('2026-06-01T12:00:00.000Z')
    const at = new Date(clock)
    let s: ScaleApp
    afterEach(async () => { await s.close() })

    const list = async (query = '') => await s.inject({ method: 'GET', url: `/api/pools${query}` })

    it('answers the bytes of a list built afresh after writes, creations and deletions, rebuilding only what changed', async () => {
      s = await scaleApp(dialect, () => at)
      await seed(s.handle, 300, at.toISOString())
      const first = await list()
      assert.equal(first.body, await freshList(s.handle, at))
      const before = JSON.parse(first.body).pools as Array<{ pool_id: number }>
      const changed = (before[150] as { pool_id: number }).pool_id

      const statements = s.log.statements
      assert.equal((await s.inject({ method: 'PUT', url: `/api/pools/${changed}`, payload: { description: 'changed' } })).status, 200)
      const after = await list()
      // The change check, then the one pool: its row, members and history, and its change_seq once built.
      assert.equal(s.log.statements - statements, 1 + 3 + 1)
      assert.equal(after.body, await freshList(s.handle, at))
      const pools = JSON.parse(after.body).pools as Array<{ pool_id: number }>
      assert.deepEqual(pools.map((pool, i) => JSON.stringify(pool) === JSON.stringify(before[i]) ? null : pool.pool_id).filter((id) => id !== null), [changed])

      const gone = (before[3] as { pool_id: number }).pool_id
      assert.equal((await s.inject({ method: 'DELETE', url: `/api/pools/${gone}` })).status, 200)
      const created = await s.inject({ method: 'POST', url: '/api/pools', payload: { name: 'new', category: 'c' } })
      const createdId = JSON.parse(created.body).pool_id as number
      const now = await list()
      assert.equal(now.body, await freshList(s.handle, at))
      const ids = (JSON.parse(now.body).pools as Array<{ pool_id: number }>).map((pool) => pool.pool_id)
      assert.equal(ids.includes(gone), false)
      assert.equal(ids.at(-1), createdId)
      assert.deepEqual(ids, [...ids].sort((a, b) => a - b))
      assert.equal(ids.length, 300)

      // From an offset, and summaries: the same records as the whole list shows.
      const whole = JSON.parse(now.body).pools
      assert.deepEqual(JSON.parse((await list('?offset=200')).body).pools, whole.slice(200))
      assert.deepEqual(JSON.parse((await list('?offset=129')).body).pools, whole.slice(129))
      assert.deepEqual(JSON.parse((await list('?fields=summary')).body).pools, whole.map(toPoolSummary))
      assert.deepEqual(JSON.parse((await list('?offset=400')).body), { pools: [], total: 300, timestamp: at.toISOString() })
    })

    it('rebuilds thousands of stale records in slices: /healthz is answered before the list is done, and no read rebuilds them all', async () => {
      s = await scaleApp(dialect, () => at)
      await seed(s.handle, 2000, at.toISOString())
      await list()
      await changeEveryPool(s.handle)
      s.log.mostInOneRead = 0
      const started = s.log.statements
      let healthzAt: number | undefined
      let healthz: Promise<unknown> | undefined
      // As the list's first read starts, /healthz is asked for.
      let healthzStatus: number | undefined
      s.log.onNextRead = () => {
        healthz = s.inject({ method: 'GET', url: '/healthz' }).then((res) => {
          healthzStatus = res.status
          healthzAt = s.log.statements
        })
      }
      const answer = await list()
      await healthz
      const total = s.log.statements - started
      // Answered (on a busy machine PostgreSQL's ping may miss its 90 ms and answer 503: answered all the same).
      assert.ok(healthzStatus !== undefined && healthzAt !== undefined)
      // Most of the list's statements ran after /healthz was answered: it did not wait for them.
      assert.ok(s.log.statements - healthzAt > 3 * CHECK_REBUILDS, `${s.log.statements - healthzAt} of ${total} statements after /healthz`)
      assert.ok(total >= 3 * 2000, `${total} statements`)
      assert.ok(s.log.mostInOneRead < total / 10, `one read ran ${s.log.mostInOneRead} of ${total} statements`)
      assert.equal(answer.body, await freshList(s.handle, at))
      // Large enough to be streamed, with its length, and HEAD says the same.
      assert.ok(answer.body.length > COPY_MAX)
      assert.equal(answer.headers['content-length'], String(Buffer.byteLength(answer.body)))
      assert.equal(answer.headers['transfer-encoding'], undefined)
      const head = await s.inject({ method: 'HEAD', url: '/api/pools' })
      assert.equal(head.status, 200)
      assert.equal(head.body, '')
      assert.equal(head.headers['content-length'], answer.headers['content-length'])
      // From offsets inside and at the edges of the segments the list is kept in, and summaries.
      const whole = JSON.parse(answer.body).pools
      for (const offset of [1, SEGMENT_IDS - 2, SEGMENT_IDS - 1, SEGMENT_IDS, 1999]) {
        assert.deepEqual(JSON.parse((await list(`?offset=${offset}`)).body).pools, whole.slice(offset), `offset ${offset}`)
      }
      assert.deepEqual(JSON.parse((await list('?fields=summary')).body).pools, whole.map(toPoolSummary))
      assert.deepEqual(JSON.parse((await list('?fields=summary&offset=1500')).body).pools, whole.slice(1500).map(toPoolSummary))
    })

    it('gives concurrent requests the same records, and one made after a write the write, while slices run', async () => {
      let tick = clock
      s = await scaleApp(dialect, () => new Date(tick++))
      await seed(s.handle, 2000, at.toISOString())
      await list()
      await changeEveryPool(s.handle)
      const answers = await Promise.all(Array.from({ length: 10 }, async () => await list()))
      const bodies = new Set(answers.map((answer) => records(answer.body)))
      assert.equal(bodies.size, 1)
      assert.equal(JSON.parse(answers[0]?.body as string).pools.every((pool: { total_rotations: number }) => pool.total_rotations === 1), true)

      // A provider shown by the first pool and the last is renamed while a list's slices run;
      // then, once the rename is answered, another list is asked for.
      await changeEveryPool(s.handle)
      const renamed = 'provider-0-renamed'
      let later: Promise<{ body: string }> | undefined
      s.log.onNextRead = () => {
        later = (async () => {
          const provider = (JSON.parse((await s.inject({ method: 'GET', url: '/api/providers' })).body) as Array<{ id: number, name: string }>).find((p) => p.name === 'provider-0')
          assert.ok(provider !== undefined)
          assert.equal((await s.inject({ method: 'PUT', url: `/api/providers/${provider.id}`, payload: { name: renamed } })).status, 200)
          return await list()
        })()
      }
      const during = await list()
      const after = await (later as Promise<{ body: string }>)
      const names = (body: string) => new Set((JSON.parse(body).pools as Array<{ members: Array<{ provider_name: string }> }>)
        .flatMap((pool) => pool.members.map((m) => m.provider_name)).filter((name) => name.startsWith('provider-0')))
      // Before the rename or after it, never both.
      assert.equal(names(during.body).size, 1, [...names(during.body)].join())
      assert.deepEqual([...names(after.body)], [renamed])
    })
  })
}
