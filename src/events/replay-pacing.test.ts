/**
 * Resuming the event stream does not stall the service (issue 26): over real HTTP,
 * on both databases, with some 10,000 stored events of about 2 KB, twenty clients
 * resuming from `0-0` leave /healthz answering while they are connected, and their
 * replays stop (nothing more is read) once they leave; clients that hang up at once
 * cost a page or so each; a client that stays gets every event, in order, once, and
 * then the live ones. Orderings and counts of rows read, not times. The rows the
 * replays read are counted on the database handle the hub reads through (those far
 * behind the newest only, which the hub's polls never read).
 */
import assert from 'node:assert/strict'
import { request } from 'node:http'
import { connect, type AddressInfo, type Socket } from 'node:net'
import { afterEach, it } from 'node:test'
import type { Compilable } from 'kysely'
import { poolWithMembers } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, sleep, type TestApp } from '../../test/helpers.js'
import { openStream, type Stream } from '../../test/event-stream.js'
import type { Db } from '../db/types.js'
import type { Work } from '../db/work.js'
import { MAX_REPLAY, REPLAY_PAGE } from './replay.js'

/** History rows stored before the clients come (fewer than MAX_REPLAY with the admin events: a whole replay). */
const STORED = 9_900
/** History ids far behind the newest: only replays read them (a poll reads the newest hundred or so). */
const BEHIND = STORED - 900
const CLIENTS = 20

/** Whether `check` holds within `ms` (polled). */
async function eventually (check: () => boolean, ms = 20_000): Promise<boolean> {
  for (const end = Date.now() + ms; !check() && Date.now() < end;) await sleep(20)
  return check()
}

/** Answers `GET path`'s status over a connection of its own. */
async function get (port: number, path: string): Promise<number> {
  return await new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false }, (res) => { res.resume(); res.on('end', () => { resolve(res.statusCode ?? 0) }) })
    req.on('error', reject)
    req.end()
  })
}

/** A client that resumes the stream from `0-0` on a raw socket and answers once its status line has arrived. */
async function resumeFromStart (port: number): Promise<{ socket: Socket, head: string }> {
  const socket = connect(port, '127.0.0.1')
  await new Promise((resolve, reject) => { socket.once('connect', resolve).once('error', reject) })
  socket.write('GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nLast-Event-ID: 0-0\r\n\r\n')
  const head = await new Promise<string>((resolve, reject) => { socket.once('data', (chunk: Buffer) => { resolve(chunk.toString()) }).once('error', reject) })
  return { socket, head }
}

for (const dialect of dialects) {
  describeOn(dialect, 'resuming the event stream, paced', () => {
    let t: TestApp
    let port: number
    /** History rows with ids up to BEHIND that the hub's reads have answered so far. */
    let historyRowsRead = 0
    const sockets: Socket[] = []
    const streams: Stream[] = []

    afterEach(async () => {
      for (const socket of sockets.splice(0)) socket.destroy()
      for (const stream of streams.splice(0)) stream.close()
      await t.close()
    })

    /** The app, listening, with STORED history records of about 2 KB each and the hub's history reads counted. */
    async function start (env: Record<string, string> = {}): Promise<number> {
      t = await buildTestApp(dialect, { healthCheckTimer: false }, env)
      const { poolId, providers } = await poolWithMembers(t, 'p', ['a', 'b'])
      const notes = 'n'.repeat(2000)
      const rows = Array.from({ length: STORED }, (_, i) => ({
        pool_id: poolId, from_provider_id: providers.a as number, to_provider_id: providers.b as number, reason: `stored-${i}`, success: 1, notes, timestamp: new Date().toISOString(), until: null
      }))
      for (let i = 0; i < rows.length; i += 500) await t.database.db.insertInto('rotation_history').values(rows.slice(i, i + 500)).execute()
      // The hub reads through this handle: count the rows its history reads answer.
      const read = t.database.read.bind(t.database)
      historyRowsRead = 0
      t.database.read = async <T>(work: (db: Db) => Work<T>) => await read((db) => counted(work(db)))
      await t.app.listen({ host: '127.0.0.1', port: 0 })
      port = (t.app.server.address() as AddressInfo).port
      return poolId
    }

    /** `work`, counting the rows up to BEHIND its reads of rotation_history answer. */
    function * counted<T> (work: Work<T>): Work<T> {
      let step = work.next()
      while (step.done !== true) {
        const query = step.value
        const rows = yield query
        const compile = (query as Partial<Compilable<unknown>>).compile
        if (typeof compile === 'function' && /from "rotation_history" as "h"/.test(compile.call(query).sql)) historyRowsRead += (rows as Array<{ id: number }>).filter((row) => row.id <= BEHIND).length
        step = work.next(rows)
      }
      return step.value
    }

    it('cuts a replay whose client takes nothing for EVENTS_STALL_MS, so it does not keep its place', async () => {
      await start({ EVENTS_MAX_CLIENTS: '1', EVENTS_STALL_MS: '300' })
      const { socket, head } = await resumeFromStart(port)
      sockets.push(socket)
      assert.match(head, /^HTTP\/1\.1 200/)
      // Connected, reading nothing: its place is taken while the replay waits for it…
      socket.pause()
      assert.equal(await get(port, '/api/events'), 503)
      // …until the stall cut frees it.
      let status = 503
      for (const end = Date.now() + 20_000; status === 503 && Date.now() < end; await sleep(100)) {
        status = await new Promise<number>((resolve, reject) => {
          const req = request({ host: '127.0.0.1', port, path: '/api/events', agent: false }, (res) => { resolve(res.statusCode ?? 0); res.destroy() })
          req.on('error', reject)
          req.end()
        })
      }
      assert.equal(status, 200)
    })

    it('answers /healthz while twenty clients resume from the start, and stops reading for them once they leave', async () => {
      await start()
      const clients = await Promise.all(Array.from({ length: CLIENTS }, async () => await resumeFromStart(port)))
      for (const { socket, head } of clients) {
        sockets.push(socket)
        assert.match(head, /^HTTP\/1\.1 200/)
        // Connected, not reading: each replay waits for its client.
        socket.pause()
      }
      const whole = CLIENTS * BEHIND
      assert.equal(await get(port, '/healthz'), 200)
      const atHealthz = historyRowsRead
      assert.ok(atHealthz < whole, `/healthz answered between pages (${atHealthz} of ${whole} rows read)`)
      await sleep(500)
      // Everyone leaves at once: nothing more is read for them (a page each in flight at most).
      const atLeaving = historyRowsRead
      for (const { socket } of clients) socket.destroy()
      await sleep(1000)
      const after = historyRowsRead
      assert.ok(after - atLeaving <= CLIENTS * REPLAY_PAGE, `${after - atLeaving} rows read after they left`)
      assert.ok(after < whole / 2, `${after} of ${whole} rows read for clients that took none of them`)
      assert.equal(await get(port, '/healthz'), 200)
    })

    it('gives a client that stays its first events before reading its replay, then every event in order, once, and the live ones; a page or so for each client that hangs up at once', async () => {
      const poolId = await start()
      const stays = await openStream(`http://127.0.0.1:${port}/api/events`, { 'last-event-id': '0-0' })
      streams.push(stays)
      // Never the whole replay read before the first event goes out.
      assert.ok(await eventually(() => stays.events.length > 0))
      assert.ok(historyRowsRead < BEHIND, `${historyRowsRead} rows read before the first event arrived`)
      // Twenty more resume and hang up at once, while it replays.
      await Promise.all(Array.from({ length: CLIENTS }, async () => {
        const { socket } = await resumeFromStart(port)
        socket.destroy()
      }))
      // A live event while it replays, and one after: both after the replay, once.
      await t.request({ method: 'POST', url: `/api/pools/${poolId}/rotate`, payload: { reason: 'live-1' } })
      assert.ok(await eventually(() => stays.events.some((e) => e.data.reason === 'live-1')), `${stays.events.length} events, not the live one`)
      await t.request({ method: 'POST', url: `/api/pools/${poolId}/rotate`, payload: { reason: 'live-2' } })
      assert.ok(await eventually(() => stays.events.some((e) => e.data.reason === 'live-2')))
      await sleep(300)

      const reasons = stays.events.filter((e) => e.event === 'rotation').map((e) => e.data.reason as string)
      assert.deepEqual(reasons, [...Array.from({ length: STORED }, (_, i) => `stored-${i}`), 'live-1', 'live-2'])
      const admin = stays.events.filter((e) => e.event === 'admin')
      assert.ok(admin.length > 0 && admin.length + STORED < MAX_REPLAY, `${admin.length} admin events`)
      // Each event once, every id at or past the one before in both sources.
      const ids = stays.events.map((e) => e.id as string)
      assert.equal(new Set(ids).size, ids.length)
      const cursors = ids.map((id) => id.split('-').map(Number) as [number, number])
      for (let i = 1; i < cursors.length; i++) {
        const [h0, a0] = cursors[i - 1] as [number, number]
        const [h1, a1] = cursors[i] as [number, number]
        assert.ok(h1 >= h0 && a1 >= a0, `${ids[i - 1] as string} then ${ids[i] as string}`)
      }
      // The leavers cost a page or two each: far from a replay each.
      assert.ok(historyRowsRead <= BEHIND + CLIENTS * REPLAY_PAGE * 2, `${historyRowsRead} rows read in all`)
    })
  })
}
