/**
 * The event stream over real HTTP on both databases: each kind of event with its
 * id, the filters, resuming with Last-Event-ID, heartbeats, the bounds (a client
 * that stops reading is dropped; at most EVENTS_MAX_CLIENTS streams), and, on
 * PostgreSQL, an event made by another instance arriving.
 */
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { connect, type AddressInfo, type Socket } from 'node:net'
import { after, afterEach, it } from 'node:test'
import { addMember, createPool, createProvider, poolWithMembers } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, postgres, sharedDatabase, sleep, sqlite, type TestApp } from '../../test/helpers.js'
import { http, startServer } from '../../test/server-process.js'
import { upstream, type Upstream } from '../../test/upstreams.js'
import { openStream, type Stream } from '../../test/event-stream.js'
import { createEventHub, historyEvent } from './event-hub.js'
import { checkFailedNotes } from '../rules/history-kind.js'

for (const dialect of dialects) {
  describeOn(dialect, 'the event stream', () => {
    let t: TestApp
    let base: string
    const streams: Stream[] = []
    const upstreams: Upstream[] = []
    async function start (env: Record<string, string> = {}, now?: () => Date) {
      t = await buildTestApp(dialect, { healthCheckTimer: false, ...(now === undefined ? {} : { now }) }, env)
      await t.app.listen({ host: '127.0.0.1', port: 0 })
      base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
    }
    async function stream (query = '', headers: Record<string, string> = {}) {
      const opened = await openStream(`${base}/api/events${query}`, headers)
      streams.push(opened)
      return opened
    }
    afterEach(async () => {
      for (const s of streams.splice(0)) s.close()
      await t.close()
      for (const u of upstreams.splice(0)) await u.close()
    })

    it('streams rotations, failovers, health changes and admin changes, each with its id, filtered by pool and type', async () => {
      await start()
      const { poolId, providers } = await poolWithMembers(t, 'p', ['a', 'b'])
      const other = await poolWithMembers(t, 'q', ['c', 'd'])
      const all = await stream()
      assert.equal(all.response.statusCode, 200)
      assert.match(String(all.response.headers['content-type']), /^text\/event-stream/)
      const onlyP = await stream(`?pool_id=${poolId}&type=rotation,failover`)
      await new Promise((resolve) => setTimeout(resolve, 300))
      await t.request({ method: 'POST', url: `/api/pools/${poolId}/rotate`, payload: { reason: 'scheduled' } })
      await t.request({ method: 'POST', url: `/api/pools/${other.poolId}/rotate`, payload: {} })
      await t.request({ method: 'POST', url: `/api/pools/${poolId}/failover`, payload: { failed_provider_id: providers.a } })
      // A health change: a provider of the other pool fails its check (nothing listens on port 9).
      const checked = (await t.request({ method: 'POST', url: '/api/providers', payload: { name: 'checked', base_url: 'http://127.0.0.1:9', health_check: { path: '/h', unhealthy_threshold: 1 } } })).body.provider_id
      await t.request({ method: 'POST', url: `/api/pools/${other.poolId}/members`, payload: { provider_id: checked } })
      await t.app.healthChecks.checkNow()
      await t.request({ method: 'PUT', url: `/api/pools/${poolId}`, payload: { description: 'changed' } })
      const events = (await all.waitFor(7)).filter((e) => !(e.event === 'admin' && e.data.action !== 'pool.update'))
      assert.deepEqual(events.map((e) => e.event), ['rotation', 'rotation', 'failover', 'health', 'admin'])
      assert.deepEqual([events[0]?.data.pool_id, events[0]?.data.to, events[0]?.data.reason], [poolId, 'p-a', 'scheduled'])
      assert.deepEqual([events[2]?.data.from, events[2]?.data.to], ['p-a', 'p-b'])
      assert.deepEqual([events[3]?.data.pool_id, events[3]?.data.change, events[3]?.data.cause, events[3]?.data.provider], [other.poolId, 'cooldown_started', 'health_check', 'checked'])
      assert.deepEqual([events[4]?.data.action, events[4]?.data.target, events[4]?.data.actor], ['pool.update', `pool:${poolId}`, 'anonymous'])
      for (const event of events) assert.match(event.id ?? '', /^\d+-\d+$/)
      const filtered = await onlyP.waitFor(2)
      assert.deepEqual(filtered.map((e) => [e.event, e.data.pool_id]), [['rotation', poolId], ['failover', poolId]])
    })

    it('resumes after Last-Event-ID with what was missed, then goes on live', async () => {
      await start()
      const { poolId } = await poolWithMembers(t, 'p', ['a', 'b'])
      const first = await stream()
      await new Promise((resolve) => setTimeout(resolve, 300))
      await t.request({ method: 'POST', url: `/api/pools/${poolId}/rotate`, payload: {} })
      const [seen] = await first.waitFor(1)
      first.close()
      await t.request({ method: 'POST', url: `/api/pools/${poolId}/rotate`, payload: {} })
      await t.request({ method: 'POST', url: `/api/pools/${poolId}/rotate`, payload: {} })
      const resumed = await stream('', { 'last-event-id': seen?.id as string })
      const missed = await resumed.waitFor(2)
      assert.deepEqual(missed.map((e) => e.data.to), ['p-b', 'p-a'])
      await t.request({ method: 'POST', url: `/api/pools/${poolId}/rotate`, payload: {} })
      assert.deepEqual((await resumed.waitFor(3)).map((e) => e.data.to), ['p-b', 'p-a', 'p-b'])
      const byQuery = await stream(`?last_event_id=${seen?.id as string}&type=rotation`)
      assert.equal((await byQuery.waitFor(3)).length, 3)
      const bad = await t.request({ method: 'GET', url: '/api/events', headers: { 'last-event-id': 'yesterday' } })
      assert.equal(bad.status, 422)
      assert.deepEqual(bad.body.detail[0].loc, ['header', 'last-event-id'])
    })

    it('streams a refusal learned once per provider and resource, in the pool whose request met it; its clearing as an admin event', async () => {
      await start()
      // 'x' refuses /despesas (slowly: two requests get its 403 before either learns it).
      const x = await upstream((req, res) => { setTimeout(() => { res.writeHead(req.url === '/despesas' ? 403 : 200).end('{}') }, 100) })
      const y = await upstream((_req, res) => { res.writeHead(200).end('{}') })
      upstreams.push(x, y)
      const xId = await createProvider(t, 'x', { base_url: x.url })
      const yId = await createProvider(t, 'y', { base_url: y.url })
      const both = await createPool(t, 'both')
      const alone = await createPool(t, 'alone')
      await addMember(t, both, xId)
      await addMember(t, both, yId)
      await addMember(t, alone, xId)
      const refusals = await stream('?type=refusal')
      const admin = await stream('?type=admin')
      await new Promise((resolve) => setTimeout(resolve, 300))
      const refused = await Promise.all([1, 2].map(async () => await t.request({ method: 'GET', url: `/api/pools/${alone}/proxy/despesas` })))
      assert.deepEqual(refused.map((r) => r.status), [502, 502])
      assert.equal(x.seen.length, 2, 'both requests asked x')
      const served = await t.request({ method: 'GET', url: `/api/pools/${both}/proxy/despesas` })
      assert.deepEqual([served.status, served.headers['x-sourcepool-provider']], [200, 'y'])
      const events = await refusals.waitFor(1)
      await new Promise((resolve) => setTimeout(resolve, 300))
      // Only in 'alone', whose requests met the 403: a caller of one pool cannot fill the history of the provider's others.
      assert.equal(refusals.events.length, 1, JSON.stringify(refusals.events))
      assert.deepEqual(events.map((e) => e.event), ['refusal'])
      assert.deepEqual(events.map((e) => e.data.pool_id), [alone])
      const stored = (await t.request({ method: 'GET', url: `/api/providers/${xId}/refusals` })).body.refusals[0]
      for (const event of events) {
        assert.deepEqual([event.data.change, event.data.resource, event.data.provider, event.data.provider_id], ['learned', '/despesas', 'x', xId])
        // When it ends as learned: the second 403 renewed it (no event), a few milliseconds later.
        const renewedBy = Date.parse(stored.expires_at) - Date.parse(event.data.until)
        assert.ok(renewedBy >= 0 && renewedBy < 1000, `${event.data.until as string} / ${stored.expires_at as string}`)
      }
      // Not a rotation: the charts count none.
      for (const poolId of [both, alone]) {
        assert.deepEqual((await t.request({ method: 'GET', url: `/api/pools/${poolId}/activity?minutes=1` })).body.rotations, [0])
      }
      assert.equal((await t.request({ method: 'DELETE', url: `/api/providers/${xId}/refusals/despesas` })).status, 200)
      const [cleared] = (await admin.waitFor(1)).filter((e) => e.data.action === 'provider.refusal.clear')
      assert.deepEqual([cleared?.event, cleared?.data.target], ['admin', `provider:${xId}`])
    })

    it('streams a quota window used up once per window, through rotations and through the proxy', async () => {
      // A clock of its own: the hour's window cannot turn while the test runs.
      await start({}, () => new Date('2026-11-23T22:41:10.000Z'))
      const ok = await upstream((_req, res) => { res.writeHead(200).end('{}') })
      upstreams.push(ok)
      // Through the API: the second rotation takes the last use of 'm', which serves two pools.
      const m = await createProvider(t, 'm', { base_url: ok.url, rate_limit: { requests: 2, per: 'hour' } })
      const rotated = await createPool(t, 'rotated')
      const other = await createPool(t, 'other')
      await addMember(t, rotated, m)
      await addMember(t, other, m)
      // Through the proxy: 'n' allows three requests an hour.
      const n = await createProvider(t, 'n', { base_url: ok.url, rate_limit: { requests: 3, per: 'hour' } })
      const proxied = await createPool(t, 'proxied')
      await addMember(t, proxied, n)
      const quotas = await stream('?type=quota,refusal')
      await new Promise((resolve) => setTimeout(resolve, 300))
      for (let i = 0; i < 2; i++) assert.equal((await t.request({ method: 'POST', url: `/api/pools/${rotated}/rotate`, payload: {} })).status, 200)
      assert.equal((await t.request({ method: 'POST', url: `/api/pools/${rotated}/rotate`, payload: {} })).status, 404)
      assert.deepEqual((await quotas.waitFor(2)).map((e) => e.data.provider), ['m', 'm'], 'recorded by the rotation that took the last use')
      // The proxy finds the same window used up: recorded already, by whichever process found it first.
      assert.equal((await t.request({ method: 'GET', url: `/api/pools/${other}/proxy/data` })).status, 503)
      const statuses: number[] = []
      for (let i = 0; i < 5; i++) {
        statuses.push((await t.request({ method: 'GET', url: `/api/pools/${proxied}/proxy/data` })).status)
        await t.app.runtime.flush()
      }
      assert.deepEqual(statuses, [200, 200, 200, 503, 503])
      const events = await quotas.waitFor(3)
      await new Promise((resolve) => setTimeout(resolve, 300))
      assert.equal(quotas.events.length, 3, JSON.stringify(quotas.events))
      const resetsAt = '2026-11-23T23:00:00.000Z'
      assert.deepEqual(events.map((e) => [e.event, e.data.change, e.data.pool_id, e.data.provider, e.data.until]).sort(), [
        ['quota', 'exhausted', rotated, 'm', resetsAt],
        ['quota', 'exhausted', other, 'm', resetsAt],
        ['quota', 'exhausted', proxied, 'n', resetsAt]
      ].sort())
      assert.match(events[0]?.data.notes, /used up its quota of \d per hour/)
      // Not rotations: the rotated pool counts its one rotation (the second stayed on 'm').
      assert.deepEqual((await t.request({ method: 'GET', url: `/api/pools/${rotated}/activity?minutes=1` })).body.rotations, [1])
    })

    it("carries a started cooldown's end as `until`, from which a client shows probing", async () => {
      await start()
      const { poolId, providers } = await poolWithMembers(t, 'p', ['a', 'b'], { failure_threshold: 1 })
      const health = await stream('?type=health')
      await new Promise((resolve) => setTimeout(resolve, 300))
      const reported = await t.request({ method: 'POST', url: `/api/pools/${poolId}/report`, payload: { provider_id: providers.a, success: false, error: 'boom' } })
      assert.equal(reported.body.health, 'cooling_down')
      const [event] = await health.waitFor(1)
      assert.deepEqual([event?.data.change, event?.data.cause, event?.data.provider, event?.data.until], ['cooldown_started', 'consecutive_failures', 'p-a', reported.body.cooldown_until])
    })

    it('answers with the request id and the CORS headers, as every answer does', async () => {
      await start({ CORS_ORIGINS: 'https://dash.example' })
      const given = await stream('', { 'x-request-id': 'stream-1', origin: 'https://dash.example' })
      assert.equal(given.response.statusCode, 200)
      assert.equal(given.response.headers['x-request-id'], 'stream-1')
      assert.equal(given.response.headers['access-control-allow-origin'], 'https://dash.example')
      assert.match(String(given.response.headers['access-control-expose-headers']), /x-request-id/)
      assert.match(String(given.response.headers['content-type']), /^text\/event-stream/)
      const made = await stream()
      assert.match(String(made.response.headers['x-request-id']), /^[0-9a-f-]{36}$/)
      assert.notEqual(made.response.headers['x-request-id'], given.response.headers['x-request-id'])
    })

    it('sends heartbeats, and refuses streams past EVENTS_MAX_CLIENTS', async () => {
      await start({ EVENTS_HEARTBEAT_MS: '200', EVENTS_MAX_CLIENTS: '1' })
      const one = await stream()
      const deadline = Date.now() + 3000
      while (one.comments.filter((c) => c === 'heartbeat').length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
      assert.ok(one.comments.filter((c) => c === 'heartbeat').length >= 2, JSON.stringify(one.comments))
      const refused = await t.request({ method: 'GET', url: '/api/events' })
      assert.equal(refused.status, 503)
      assert.match(refused.body.detail, /At most 1 event streams/)
    })
  })
}

it('drops a listener whose client stops reading, and goes on serving the others', async () => {
  const t = await buildTestApp(dialects[0] as (typeof dialects)[number], { healthCheckTimer: false })
  try {
    const { poolId } = await poolWithMembers(t, 'p', ['a', 'b'])
    const hub = createEventHub({ database: t.database, pollMs: 20, heartbeatMs: 60_000, maxBufferedBytes: 100 })
    let slowEnded = false
    let fastGot = 0
    // One client's socket holds everything it is sent (it never reads); the other's drains.
    let held = 0
    hub.subscribe({ write: (text) => { held += text.length; return held }, end: () => { slowEnded = true }, drained: async () => {} })
    hub.subscribe({ write: (text) => { if (text.startsWith('id:')) fastGot++; return 0 }, end: () => {}, drained: async () => {} })
    await new Promise((resolve) => setTimeout(resolve, 100))
    for (let i = 0; i < 3; i++) await t.request({ method: 'POST', url: `/api/pools/${poolId}/rotate`, payload: {} })
    const done = () => slowEnded && fastGot >= 3
    for (const deadline = Date.now() + 3000; !done() && Date.now() < deadline;) await new Promise((resolve) => setTimeout(resolve, 20))
    assert.equal(slowEnded, true, 'the slow listener was dropped')
    assert.equal(fastGot, 3, 'the other got every event')
    assert.equal(hub.size(), 1)
    await hub.close()
  } finally {
    await t.close()
  }
})

/** Asserts that each id stands at or past the one before in both sources (the stream's order). */
function assertInOrder (ids: string[]): void {
  const cursors = ids.map((id) => id.split('-').map(Number) as [number, number])
  cursors.forEach(([history, audit], i) => {
    const [h, a] = cursors[i - 1] ?? [0, 0]
    assert.ok(history >= h && audit >= a, `${ids[i - 1] ?? ''} then ${ids[i] ?? ''}`)
  })
}

/** The record each event sent stands for: `a<audit id>` for an admin event, `h<history id>` for the others. */
const recordsIn = (texts: string[]): string[] => texts.filter((text) => text.startsWith('id:')).map((text) => {
  const [, history, audit, type] = /^id: (\d+)-(\d+)\nevent: (\w+)/.exec(text) as RegExpExecArray
  return type === 'admin' ? `a${audit as string}` : `h${history as string}`
})

/** Event ids in what a listener was sent. */
const idsIn = (texts: string[]): string[] => texts.filter((text) => text.startsWith('id:')).map((text) => (/^id: (\S+)/.exec(text) as RegExpExecArray)[1] as string)

it('paces a replay by its client: nothing more while it holds the mark unsent, then the whole, in order, once, and the live events after it', async () => {
  const t = await buildTestApp(dialects[0] as (typeof dialects)[number], { healthCheckTimer: false })
  try {
    const { poolId } = await poolWithMembers(t, 'p', ['a', 'b'])
    for (let i = 0; i < 30; i++) await t.request({ method: 'POST', url: `/api/pools/${poolId}/rotate`, payload: {} })
    const hub = createEventHub({ database: t.database, pollMs: 20, heartbeatMs: 60_000, maxBufferedBytes: 2000 })
    // One client reads along; the other takes what it holds only when told to.
    const whole: string[] = []
    hub.subscribe({ write: (text) => { whole.push(text); return 0 }, end: () => {}, drained: async () => {} }, { history: 0, audit: 0 })
    const paced: string[] = []
    let held = 0
    let ended = false
    let read = () => {}
    const unsubscribe = hub.subscribe({
      write: (text) => { paced.push(text); held += text.length; return held },
      end: () => { ended = true },
      drained: async () => { await new Promise<void>((resolve) => { read = () => { held = 0; resolve() } }) }
    }, { history: 0, audit: 0 })
    await eventually(() => idsIn(whole).length >= 30 && held > 1000)
    const before = paced.length
    // Events made while it waits come after its replay, once.
    for (let i = 0; i < 3; i++) await t.request({ method: 'POST', url: `/api/pools/${poolId}/rotate`, payload: {} })
    await sleep(200)
    assert.equal(paced.length, before, 'nothing more is written while the client holds the mark unsent')
    assert.ok(held < 2000, `it holds ${held} bytes, under the drop bound`)
    assert.equal(ended, false, 'it is not dropped')
    assert.equal(hub.size(), 2)
    await eventually(() => { read(); return idsIn(paced).length >= idsIn(whole).length && idsIn(whole).length >= 33 })
    await t.request({ method: 'POST', url: `/api/pools/${poolId}/rotate`, payload: { reason: 'live' } })
    await eventually(() => { read(); return paced.some((text) => text.includes('"reason":"live"')) && whole.some((text) => text.includes('"reason":"live"')) })
    // The same events (the paced one read those made while it waited from storage, the other live), each once, in order.
    const ids = idsIn(paced)
    const records = recordsIn(paced)
    assert.deepEqual([...records].sort(), [...recordsIn(whole)].sort())
    assert.equal(new Set(records).size, records.length, 'each event once')
    assertInOrder(ids)
    assertInOrder(idsIn(whole))
    unsubscribe()
    assert.equal(hub.size(), 1)
    await hub.close()
  } finally {
    await t.close()
  }
})

it('serves a joiner whose replay starts in the same poll as another\'s that stalls (the hub keeps running)', async () => {
  const t = await buildTestApp(dialects[0] as (typeof dialects)[number], { healthCheckTimer: false })
  try {
    const { poolId } = await poolWithMembers(t, 'p', ['a', 'b'])
    for (let i = 0; i < 30; i++) await t.request({ method: 'POST', url: `/api/pools/${poolId}/rotate`, payload: {} })
    const failures: unknown[] = []
    const hub = createEventHub({ database: t.database, pollMs: 20, heartbeatMs: 60_000, maxBufferedBytes: 2000, warn: (error) => { failures.push(error) } })
    let held = 0
    const received: string[] = []
    // In one turn, so that one poll takes both: the first never takes what it holds, the second does.
    const stalled = hub.subscribe({ write: (text) => { held += text.length; return held }, end: () => {}, drained: async () => { await new Promise(() => {}) } }, { history: 0, audit: 0 })
    hub.subscribe({ write: (text) => { if (text.startsWith('id:')) received.push(text); return 0 }, end: () => {}, drained: async () => {} }, { history: 0, audit: 0 })
    await eventually(() => received.length >= 30)
    assert.ok(held > 1000 && held < 2000, `the first stalled with ${held} bytes held`)
    assert.ok(received.length >= 30, `the second got its whole replay (${received.length})`)
    await t.request({ method: 'POST', url: `/api/pools/${poolId}/rotate`, payload: { reason: 'live' } })
    assert.ok(await eventually(() => received.some((text) => text.includes('"reason":"live"'))), 'then live events')
    assert.deepEqual(failures, [], 'no poll failed')
    assert.equal(hub.size(), 2)
    stalled()
    assert.equal(hub.size(), 1)
    await hub.close()
  } finally {
    await t.close()
  }
})

it('turns each kind of history record into its event: a failed health check is a health event', () => {
  const row = { id: 7, pool_id: 2, from_provider_id: 3, to_provider_id: null, from_name: 'a', to_name: null, success: 0, timestamp: '2026-01-01T00:00:00.000Z', until: null }
  const cursor = { history: 7, audit: 4 }
  const failed = historyEvent({ ...row, reason: 'check_failed', notes: checkFailedNotes(3, 'HTTP 503') }, cursor)
  assert.deepEqual({ id: failed.id, type: failed.type, pool_id: failed.pool_id }, { id: '7-4', type: 'health', pool_id: 2 })
  assert.equal(failed.data.change, 'check_failed')
  assert.equal(failed.data.provider, 'a')
  assert.equal(failed.data.notes, 'Provider 3 failed its health check (HTTP 503)')
  // A client's rotation whose reason reads the same is a rotation.
  assert.equal(historyEvent({ ...row, to_provider_id: 4, to_name: 'b', reason: 'check_failed', notes: null }, cursor).type, 'rotation')
})

/** Whether `check` holds within `ms` (polled). */
async function eventually (check: () => boolean, ms = 5000): Promise<boolean> {
  for (const end = Date.now() + ms; !check() && Date.now() < end;) await sleep(20)
  return check()
}

it('drops a client that stops reading over a real socket, while another goes on receiving', async () => {
  // A bound a client reading along never reaches (the events of a poll arrive in one burst), and
  // short polls; the slow client's kernel buffers (a few MiB on loopback) fill first, then the bound.
  const t = await buildTestApp(sqlite, { healthCheckTimer: false }, { EVENTS_CLIENT_BUFFER_BYTES: String(256 * 1024), FLUSH_INTERVAL_MS: '20' })
  const sockets: Socket[] = []
  let normal: Stream | undefined
  try {
    await t.app.listen({ host: '127.0.0.1', port: 0 })
    const { port } = t.app.server.address() as AddressInfo
    const connections = async () => await new Promise<number>((resolve, reject) => { t.app.server.getConnections((error, count) => { if (error !== null) reject(error); else resolve(count) }) })
    const { poolId } = await poolWithMembers(t, 'p', ['a', 'b'])

    // The slow client asks for the stream, reads its first bytes (status line, retry), then stops reading.
    const slow = connect(port, '127.0.0.1')
    sockets.push(slow)
    await once(slow, 'connect')
    slow.write('GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n')
    const [head] = await once(slow, 'data') as [Buffer]
    assert.match(head.toString(), /^HTTP\/1\.1 200/)
    slow.pause()
    let slowClosed = false
    slow.on('close', () => { slowClosed = true })
    normal = await openStream(`http://127.0.0.1:${port}/api/events?type=rotation`)
    await sleep(300)
    assert.equal(await connections(), 2)

    // Events of about 500 bytes each, until the server has dropped the slow client (at most 15 MB of them).
    const reason = 'r'.repeat(200)
    let rotations = 0
    while (await connections() > 1 && rotations < 30_000) {
      await Promise.all(Array.from({ length: 250 }, async () => await t.request({ method: 'POST', url: `/api/pools/${poolId}/rotate`, payload: { reason } })))
      rotations += 250
      await sleep(20)
    }
    assert.equal(await connections(), 1, `the slow client is still connected after ${rotations} rotations`)

    // The other client still gets what happens next.
    await t.request({ method: 'POST', url: `/api/pools/${poolId}/rotate`, payload: { reason: 'after-the-drop' } })
    const other = normal
    assert.ok(await eventually(() => other.events.some((e) => e.data.reason === 'after-the-drop')), `${other.events.length} events, not the last`)
    // Reading again, the slow client finds its connection ended.
    slow.resume()
    assert.ok(await eventually(() => slowClosed), 'the slow client\'s connection ended')
  } finally {
    normal?.close()
    for (const socket of sockets) socket.destroy()
    await t.close()
  }
})

describeOn(postgres, 'the event stream across instances', () => {
  let database: Awaited<ReturnType<typeof sharedDatabase>> | undefined
  const stops: Array<() => Promise<unknown>> = []
  after(async () => {
    for (const stop of stops) await stop()
    await database?.drop()
  })

  it('carries an event made by another instance on the same database', async () => {
    database = await sharedDatabase(postgres)
    const one = await startServer({ DATABASE_URL: database.url })
    stops.push(one.stop)
    const two = await startServer({ DATABASE_URL: database.url })
    stops.push(two.stop)
    const pool = (await http('POST', `${two.url}/api/pools`, { name: 'p', category: 'c' })).body.pool_id
    const events = await openStream(`${one.url}/api/events?type=rotation`)
    try {
      await new Promise((resolve) => setTimeout(resolve, 300))
      for (const name of ['a', 'b']) {
        const provider = (await http('POST', `${two.url}/api/providers`, { name })).body.provider_id
        await http('POST', `${two.url}/api/pools/${pool as number}/members`, { provider_id: provider })
      }
      await http('POST', `${two.url}/api/pools/${pool as number}/rotate`, {})
      const [event] = await events.waitFor(1)
      assert.deepEqual([event?.event, event?.data.to], ['rotation', 'a'])
    } finally {
      events.close()
    }
  })
})
