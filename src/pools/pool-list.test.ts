/**
 * `GET /api/pools` beyond the spec's every-pool answer: `limit` and `offset` page
 * by pool_id, `fields=summary` answers pool fields and members counted by health,
 * bad values are refused with FastAPI's 422, and the OpenAPI document shows it all.
 */
import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { afterEach, beforeEach, it } from 'node:test'
import { execute } from '../db/work.js'
import { createPool, poolWithMembers, rotateTimes } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, type TestApp } from '../../test/helpers.js'

for (const dialect of dialects) {
  describeOn(dialect, 'GET /api/pools: pages and summaries', () => {
    let t: TestApp
    beforeEach(async () => { t = await buildTestApp(dialect) })
    afterEach(async () => { await t.close() })

    const list = async (query: string) => await t.request({ method: 'GET', url: `/api/pools${query}` })

    it('pages by pool_id with limit and offset; total counts every pool', async () => {
      const ids: number[] = []
      for (const name of ['p1', 'p2', 'p3', 'p4', 'p5']) ids.push(await createPool(t, name))
      const all = await list('')
      assert.deepEqual(all.body.pools.map((p: any) => p.pool_id), ids)
      assert.equal(all.body.total, 5)
      const page = await list('?limit=2&offset=1')
      assert.equal(page.status, 200)
      assert.deepEqual(page.body.pools.map((p: any) => p.pool_id), ids.slice(1, 3))
      assert.equal(page.body.total, 5)
      assert.deepEqual(page.body.pools[0], all.body.pools[1])
      assert.deepEqual((await list('?limit=2')).body.pools.map((p: any) => p.pool_id), ids.slice(0, 2))
      assert.deepEqual((await list('?offset=3')).body.pools.map((p: any) => p.pool_id), ids.slice(3))
      const beyond = await list('?offset=10&limit=5')
      assert.deepEqual(beyond.body.pools, [])
      assert.equal(beyond.body.total, 5)
      // The same page twice, after a change to a pool on it.
      await t.request({ method: 'PUT', url: `/api/pools/${ids[1] as number}`, payload: { description: 'changed' } })
      assert.equal((await list('?limit=2&offset=1')).body.pools[0].description, 'changed')
    })

    it('never lets a later answer rewrite one still being sent (answer buffers are reused only once closed)', async () => {
      let clock = Date.parse('2026-05-01T00:00:00.000Z')
      await t.close()
      t = await buildTestApp(dialect, { now: () => new Date(clock++) })
      // About 6 MB, more than the kernel takes for a client that does not read (its send
      // buffer grows to 4 MB): the rest waits in the server, in the answer's Buffer.
      const at = new Date(clock).toISOString()
      for (let batch = 0; batch < 6; batch++) {
        const rows = Array.from({ length: 500 }, (_, i) => ({
          name: `served-${batch * 500 + i}`, category: 'c', description: 'd'.repeat(2000), rotation_strategy: 'round_robin', enabled: 1, created_at: at, updated_at: at, current_provider_id: null, last_rotation: null, rotation_state: '{}'
        }))
        await t.database.transact(function * (db) { yield * execute(db.insertInto('pools').values(rows)) })
      }
      const address = new URL(await t.app.listen({ host: '127.0.0.1', port: 0 }))
      const slow = connect(Number(address.port), address.hostname)
      slow.pause()
      slow.write('GET /api/pools HTTP/1.1\r\nHost: test\r\n\r\n')
      await new Promise((resolve) => setTimeout(resolve, 200))
      // Answered while the slow client's answer is still being written.
      const quick: string[] = []
      for (let i = 0; i < 3; i++) quick.push(await (await fetch(`${address.origin}/api/pools`)).text())
      const chunks: Buffer[] = []
      slow.on('data', (chunk: Buffer) => chunks.push(chunk))
      slow.resume()
      const raw = await new Promise<string>((resolve) => {
        const check = () => {
          const text = Buffer.concat(chunks).toString()
          if (text.endsWith('"}')) resolve(text)
          else setTimeout(check, 10)
        }
        check()
      })
      slow.destroy()
      const slowBody = raw.slice(raw.indexOf('\r\n\r\n') + 4)
      const stamps = [slowBody, ...quick].map((body) => JSON.parse(body).timestamp as string)
      assert.equal(new Set(stamps).size, 4, JSON.stringify(stamps))
      assert.deepEqual([...stamps].sort(), stamps)
      assert.equal(slowBody.length, quick[0]?.length)
    })

    it('answers summaries: pool fields, the current provider and members counted by health', async () => {
      const { poolId, providers } = await poolWithMembers(t, 'summed', ['a', 'b', 'c', 'd'], { description: 'four' })
      await rotateTimes(t, poolId, 1)
      await t.request({ method: 'POST', url: `/api/pools/${poolId}/report`, payload: { provider_id: providers.b, success: false, status_code: 429, retry_after_s: 600 } })
      await t.request({ method: 'POST', url: `/api/pools/${poolId}/report`, payload: { provider_id: providers.c, success: false, status_code: 429, retry_after_s: 600 } })
      await t.request({ method: 'PUT', url: `/api/pools/${poolId}/members/${providers.c}`, payload: { enabled: false } })
      await createPool(t, 'bare')
      const full = (await list('')).body.pools[0]
      const res = await list('?fields=summary')
      assert.equal(res.status, 200)
      assert.equal(res.body.total, 2)
      assert.deepEqual(res.body.pools[0], {
        pool_id: poolId,
        name: 'summed',
        category: full.category,
        description: 'four',
        rotation_strategy: 'round_robin',
        enabled: true,
        created_at: full.created_at,
        updated_at: full.updated_at,
        current_provider: { id: providers.a, provider_id: providers.a, name: 'summed-a', status: 'active' },
        total_rotations: 1,
        last_rotation: full.last_rotation,
        member_counts: { healthy: 2, probing: 0, cooling_down: 1, disabled: 1 }
      })
      assert.deepEqual(res.body.pools[1].member_counts, { healthy: 0, probing: 0, cooling_down: 0, disabled: 0 })
      assert.equal(res.body.pools[1].current_provider, null)
      assert.deepEqual((await list('?fields=summary&limit=1&offset=1')).body.pools.map((p: any) => p.name), ['bare'])
      assert.deepEqual((await list('?fields=full')).body.pools, (await list('')).body.pools)
    })

    it('answers 422 in FastAPI 0.104 + pydantic 2.5 shape for a bad limit, offset or fields', async () => {
      const url = (type: string) => `https://errors.pydantic.dev/2.5/v/${type}`
      const notInteger = (input: string) => ({ type: 'int_parsing', loc: ['query', 'limit'], msg: 'Input should be a valid integer, unable to parse string as an integer', input, url: url('int_parsing') })
      // The input is the text as sent, as pydantic reports a query value.
      const cases: Array<[string, Record<string, unknown>]> = [
        ['?limit=0', { type: 'greater_than_equal', loc: ['query', 'limit'], msg: 'Input should be greater than or equal to 1', input: '0', ctx: { ge: 1 }, url: url('greater_than_equal') }],
        ['?limit=1001', { type: 'less_than_equal', loc: ['query', 'limit'], msg: 'Input should be less than or equal to 1000', input: '1001', ctx: { le: 1000 }, url: url('less_than_equal') }],
        ['?limit=ten', notInteger('ten')],
        ['?limit=1.5', notInteger('1.5')],
        ['?offset=-1', { type: 'greater_than_equal', loc: ['query', 'offset'], msg: 'Input should be greater than or equal to 0', input: '-1', ctx: { ge: 0 }, url: url('greater_than_equal') }]
      ]
      for (const [query, issue] of cases) {
        const res = await list(query)
        assert.equal(res.status, 422, query)
        assert.deepEqual(res.body, { detail: [issue] }, query)
      }
      const fields = await list('?fields=everything')
      assert.equal(fields.status, 422)
      assert.deepEqual(fields.body.detail, [{ type: 'enum', loc: ['query', 'fields'], msg: "Input should be 'full' or 'summary'", input: 'everything', ctx: { expected: "'full' or 'summary'" } }])
    })

    it('documents the query parameters and both answers in /openapi.json', async () => {
      const doc = (await t.request({ method: 'GET', url: '/openapi.json' })).body
      const operation = doc.paths['/api/pools'].get
      assert.deepEqual(operation.parameters.map((p: any) => [p.in, p.name]).sort(), [['query', 'fields'], ['query', 'limit'], ['query', 'offset']])
      const answers = operation.responses['200'].content['application/json'].schema.anyOf
      assert.equal(answers.length, 2)
      assert.ok(answers[0].properties.pools.items.properties.members, 'status records')
      assert.ok(answers[1].properties.pools.items.properties.member_counts, 'summaries')
      assert.ok(operation.responses['422'], 'validation errors documented')
    })
  })
}
