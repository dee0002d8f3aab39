/**
 * A large apply does not stall the service (issue #26): `/healthz` answers while it
 * runs (on SQLite, while its transaction is open), a read asked meanwhile sees all
 * of it or none, a write asked meanwhile is kept and never joins it, and one that
 * fails at its last step leaves nothing. And the bound on what one state may hold
 * (STATE_LIMITS), answered 413 whichever door the state comes in by.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { sql, type Compilable } from 'kysely'
import type { Db } from '../db/types.js'
import { execute, first } from '../db/work.js'
import { answeredInside, probeHealthz } from '../../test/healthz-probe.js'
import { buildTestApp, describeOn, dialects, type TestApp } from '../../test/helpers.js'
import { DeclaredFileError, parseDeclaredFile } from './declared-file.js'
import { STATE_LIMITS } from './declared.schemas.js'

/** Pools of one member each: several slices of work on SQLite, a few seconds on PostgreSQL. */
const POOLS = 1500
const PROVIDERS = 50

/** A state of POOLS new pools and PROVIDERS new providers, all named after `prefix`. */
const largeState = (prefix: string) => ({
  providers: Array.from({ length: PROVIDERS }, (_, i) => ({ name: `${prefix}-v${i}` })),
  pools: Array.from({ length: POOLS }, (_, i) => ({ name: `${prefix}-p${i}`, category: 'scale', members: [{ provider: `${prefix}-v${i % PROVIDERS}` }] }))
})

/** A statement with no parameters, as work yields it. */
const raw = (db: Db, text: string): Compilable<unknown> => ({ compile: () => sql.raw(text).compile(db) })

for (const dialect of dialects) {
  describeOn(dialect, 'a large apply shares the event loop', () => {
    let t: TestApp
    beforeEach(async () => { t = await buildTestApp(dialect, { healthCheckTimer: false }) })
    afterEach(async () => { await t.close() })

    const apply = async (state: unknown) => await t.request({ method: 'POST', url: '/api/config/apply', payload: state as Record<string, unknown> })
    const count = async (table: 'pools' | 'providers', prefix: string) => await t.database.read(function * (db) {
      return Number((yield * first(db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).where('name', 'like', `${prefix}%`)))?.n)
    })

    it('answers /healthz while a large apply runs (on SQLite, with its transaction open), and the apply commits everything', async () => {
      const applying = apply(largeState('big'))
      const seen = await probeHealthz(t, applying)
      const applied = await applying
      assert.equal(applied.status, 200, JSON.stringify(applied.body).slice(0, 500))
      assert.deepEqual(applied.body.summary, { create: PROVIDERS + 2 * POOLS, update: 0, delete: 0 })
      assert.ok(answeredInside(t, seen), `no /healthz answer (200) came while the apply ran (${seen.answers.length} asked)`)
      assert.equal(await count('pools', 'big-'), POOLS)
    })

    it('answers a read asked during a large apply with none or all of it, and keeps a write asked meanwhile', async () => {
      let asked: Promise<Array<Awaited<ReturnType<TestApp['request']>>>> | undefined
      const applying = apply(largeState('mid'))
      const seen = await probeHealthz(t, applying, () => {
        asked = Promise.all([
          t.request({ method: 'GET', url: '/api/providers?limit=1' }),
          t.request({ method: 'POST', url: '/api/providers', payload: { name: 'written-during-apply' } })
        ])
      })
      assert.equal((await applying).status, 200)
      assert.ok(asked !== undefined && answeredInside(t, seen), 'nothing was asked while the apply ran')
      const [read, write] = await asked
      assert.equal(read?.status, 200)
      const providersSeen = Number(read?.headers['x-total-count'])
      assert.ok(providersSeen === 0 || providersSeen === PROVIDERS || providersSeen === PROVIDERS + 1, `a read saw ${providersSeen} providers: part of the apply`)
      // On SQLite the read waited for the apply's commit, behind it.
      if (dialect.name === 'sqlite') assert.ok(providersSeen >= PROVIDERS, `the read saw ${providersSeen} providers`)
      assert.equal(write?.status, 200, JSON.stringify(write?.body))
      assert.equal(await count('providers', 'written-during-apply'), 1)
      assert.equal(await count('pools', 'mid-'), POOLS)
    })

    it('leaves nothing of a large apply whose last step fails, and keeps a write asked meanwhile', async () => {
      // The last step of the plan, the member of the last pool, is refused by the database itself.
      const last = `end-p${POOLS - 1}`
      await t.database.transact(function * (db) {
        if (dialect.name === 'sqlite') {
          yield * execute(raw(db, `CREATE TRIGGER refuse_last BEFORE INSERT ON pool_members
            WHEN NEW.pool_id = (SELECT id FROM pools WHERE name = '${last}') BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`))
        } else {
          yield * execute(raw(db, `CREATE FUNCTION refuse_last() RETURNS trigger AS $$ BEGIN
            IF (SELECT name FROM pools WHERE id = NEW.pool_id) = '${last}' THEN RAISE EXCEPTION 'refused by the test'; END IF;
            RETURN NEW; END $$ LANGUAGE plpgsql`))
          yield * execute(raw(db, 'CREATE TRIGGER refuse_last BEFORE INSERT ON pool_members FOR EACH ROW EXECUTE FUNCTION refuse_last()'))
        }
      })
      let written: Promise<Awaited<ReturnType<TestApp['request']>>> | undefined
      const applying = apply(largeState('end'))
      const seen = await probeHealthz(t, applying, () => {
        written = t.request({ method: 'POST', url: '/api/providers', payload: { name: 'kept-during-failed-apply' } })
      })
      const failed = await applying
      assert.equal(failed.status, 500, JSON.stringify(failed.body))
      assert.ok(written !== undefined && answeredInside(t, seen), 'nothing was asked while the apply ran')
      assert.equal((await written).status, 200)
      assert.deepEqual([await count('pools', 'end-'), await count('providers', 'end-')], [0, 0])
      const audit = (await t.request({ method: 'GET', url: '/api/audit?limit=1000' })).body.records as Array<{ target: string }>
      assert.ok(!audit.some((r) => r.target.includes('end-')), 'an audit record of the rolled back apply')
      assert.equal(await count('providers', 'kept-during-failed-apply'), 1)
    })
  })
}

describeOn(dialects[0] as (typeof dialects)[number], 'the most one declared state may hold', () => {
  let t: TestApp
  beforeEach(async () => { t = await buildTestApp(dialects[0] as (typeof dialects)[number], { healthCheckTimer: false }) })
  afterEach(async () => { await t.close() })

  /** A state with `pools` pools of `members` members each (of one provider's name: only counted, never checked). */
  const stateOf = (pools: number, members: number, providers = 1) => ({
    providers: Array.from({ length: providers }, (_, i) => ({ name: `v${i}` })),
    pools: Array.from({ length: pools }, (_, i) => ({ name: `p${i}`, category: 'c', members: Array.from({ length: members }, () => ({ provider: 'v0' })) }))
  })

  for (const route of ['/api/config/plan', '/api/config/apply']) {
    it(`${route}: 413 for more members, pools or providers than a state may hold, nothing written`, async () => {
      const members = await t.request({ method: 'POST', url: route, payload: stateOf(STATE_LIMITS.members / 1000 + 1, 1000) })
      assert.deepEqual([members.status, members.body], [413, {
        detail: 'A declared state may hold at most 200,000 members (all its pools together); this one has 201,000: apply it in parts'
      }])
      const pools = await t.request({ method: 'POST', url: route, payload: stateOf(STATE_LIMITS.pools + 1, 0) })
      assert.deepEqual([pools.status, pools.body], [413, { detail: 'A declared state may hold at most 10,000 pools; this one has 10,001: apply it in parts' }])
      const providers = await t.request({ method: 'POST', url: route, payload: stateOf(0, 0, STATE_LIMITS.providers + 1) })
      assert.deepEqual([providers.status, providers.body], [413, { detail: 'A declared state may hold at most 10,000 providers; this one has 10,001: apply it in parts' }])
      assert.equal((await t.request({ method: 'GET', url: '/api/providers' })).body.length, 0)
    })

    it(`${route}: 413 for a body over ${STATE_LIMITS.bytes} bytes, and takes one just under it`, async () => {
      const over = JSON.stringify({ providers: [{ name: 'v0', description: 'x'.repeat(STATE_LIMITS.bytes) }] })
      const tooLarge = await t.request({ method: 'POST', url: route, payload: over, headers: { 'content-type': 'application/json' } })
      assert.deepEqual([tooLarge.status, tooLarge.body], [413, { detail: 'Request body is too large' }])
      // 8,000 pools of 10 members, as export writes them (every field): well within the bound.
      const large = stateOf(8000, 10, 1)
      const body = JSON.stringify({ ...large, pools: large.pools.map((p) => ({ ...p, rotation_strategy: 'round_robin', enabled: true, failure_threshold: 3, cooldown_seconds: 30 })) })
      assert.ok(body.length > 1024 * 1024 && body.length < STATE_LIMITS.bytes)
      const planned = await t.request({ method: 'POST', url: '/api/config/plan', payload: body, headers: { 'content-type': 'application/json' } })
      // Taken and checked: the same provider ten times in a pool is a 422, not a 413.
      assert.equal(planned.status, 422)
    })
  }
})

describe('a declared state file', () => {
  it('is refused whole when it holds more than a state may', () => {
    const pools = Array.from({ length: STATE_LIMITS.pools + 1 }, (_, i) => ({ name: `p${i}` }))
    assert.throws(() => parseDeclaredFile(JSON.stringify({ pools }), 'big.json', {}), (error: unknown) =>
      error instanceof DeclaredFileError &&
      error.message === 'big.json: A declared state may hold at most 10,000 pools; this one has 10,001: apply it in parts')
  })
})
