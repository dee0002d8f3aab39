/**
 * Failed connections (issue 35 items 6 and 7), end to end through the HTTP API on
 * real sockets: a request that never reached its provider (refused) moves on
 * whatever its method, while one the provider answered (503) or received before
 * its connection was reset keeps the failover rule; and while every member resets
 * its connections, a burst of requests makes at most one connect a second per
 * member (counted at a raw socket), the others answered at once with the pool's
 * all-down answer, until the member answers again and is used within about a second.
 * The upstream client's `unreached` and the pure rules are checked on their own too.
 */
import assert from 'node:assert/strict'
import { createServer as createHttpServer } from 'node:http'
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { poolOfUrls } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, sleep, type TestApp } from '../../test/helpers.js'
import { json, refusingUrl, upstream, type Upstream } from '../../test/upstreams.js'
import { gated, PROBE_INTERVAL_MS, PROBE_RECHECK_MS, probeAllowed, probeEndsCooldown, probeWaitMs } from '../rules/probe-gate.js'
import { classifyAttempt, failedToConnect, nextStep, reportedOutcome } from './attempt.js'
import { classifyError } from './forward.js'
import { createUpstreamClient } from './upstream-client.js'

const LIMIT = { timeout: 60_000 }

/**
 * A raw TCP server counting the connections it accepts: while `resetting`, it
 * destroys each one at once (after the client has connected and written); else an
 * HTTP server answers 200 `{"from":name}` on it.
 */
interface RawUpstream { url: string, port: number, connects: () => number, answer: () => void, close: () => Promise<void> }

async function rawUpstream (name: string): Promise<RawUpstream> {
  let connects = 0
  let resetting = true
  const sockets = new Set<Socket>()
  const http = createHttpServer((_req, res) => { json(200, { from: name })(_req, res) })
  const server: Server = createServer((socket) => {
    connects++
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    if (resetting) socket.destroy()
    else http.emit('connection', socket)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    connects: () => connects,
    answer: () => { resetting = false },
    close: async () => {
      for (const socket of sockets) socket.destroy()
      await new Promise((resolve) => server.close(resolve))
    }
  }
}

/** A minimal proxied request for the upstream client. */
const request = (method = 'GET') => ({
  method, url: '/api/pools/1/proxy/x', headers: {}, body: method === 'GET' ? undefined : Buffer.from('{}'), peer: '127.0.0.1', protocol: 'http', requestId: 'r-1', log: { info: () => {} }
})
const SENDING_POOL = { forward_client_auth: 0 }
const sendingMember = (baseUrl: string) => ({ base_url: baseUrl, auth_headers: null, timeout_ms: 2_000 })

describe('an attempt that never reached its provider', () => {
  it('is told apart by the upstream client: refused and a failed TLS handshake are unreached, a reset after the request was written is not', LIMIT, async () => {
    const client = createUpstreamClient()
    const reset = await rawUpstream('reset')
    // Plain TCP that resets whatever it reads: a TLS ClientHello is reset before the handshake ends.
    const plain = createServer((socket) => { socket.once('data', () => { socket.resetAndDestroy() }) })
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve))
    try {
      const refused = await client.send(request('POST'), '/x', SENDING_POOL, sendingMember(await refusingUrl()))
      assert.ok(!('response' in refused) && refused.unreached === true, 'refused: unreached')
      const tls = await client.send(request('POST'), '/x', SENDING_POOL, sendingMember(`https://127.0.0.1:${(plain.address() as AddressInfo).port}`))
      assert.ok(!('response' in tls) && tls.unreached === true, 'a failed TLS handshake: unreached')
      assert.equal((tls as { error: { code?: string } }).error.code, 'ECONNRESET')
      const afterWrite = await client.send(request('POST'), '/x', SENDING_POOL, sendingMember(reset.url))
      assert.ok(!('response' in afterWrite) && afterWrite.unreached === false, 'reset after the request was written: reached')
      assert.equal(reset.connects(), 1)
      // All three failed at the connection, as the probe gate counts them.
      for (const sent of [refused, tls, afterWrite]) assert.equal(failedToConnect(classifyAttempt(sent, { forward_client_auth: 0, max_cooldown_seconds: 300 }, new Date()), sent), true)
    } finally {
      await client.close()
      await reset.close()
      await new Promise((resolve) => plain.close(resolve))
    }
  })

  it('moves on whatever the method, and is reported as a failed connection; a reached failure keeps the method rule', () => {
    const unreached = classifyError(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }), false, true)
    assert.deepEqual(unreached, { kind: 'failure', reason: 'connect_error', unreached: true })
    assert.deepEqual(classifyError(Object.assign(new Error('x'), { code: 'UND_ERR_CONNECT_TIMEOUT' }), false, true), { kind: 'failure', reason: 'timeout', unreached: true })
    for (const method of ['POST', 'PATCH']) assert.equal(nextStep(unreached, method, {}, false), 'move_on', method)
    const reset = classifyError(Object.assign(new Error('x'), { code: 'ECONNRESET' }), false)
    assert.equal(nextStep(reset, 'POST', {}, false), 'stop')
    assert.equal(nextStep(reset, 'GET', {}, false), 'move_on')
    assert.equal(nextStep({ kind: 'failure', reason: 'http_503', statusCode: 503 }, 'POST', {}, false), 'stop')
    // An error of ours stays ours, connected or not.
    assert.equal(classifyError(Object.assign(new Error('x'), { code: 'UND_ERR_CLOSED' }), false, true).kind, 'ours')
    const errored = { error: new Error('x'), timedOut: false, latencyMs: 3 }
    assert.equal(reportedOutcome(reset, errored)?.connect_failed, true)
    // A timeout of a request the provider received is no failed connection.
    const timedOut = { error: new Error('x'), timedOut: true, latencyMs: 3 }
    assert.equal(reportedOutcome(classifyAttempt(timedOut, { forward_client_auth: 0, max_cooldown_seconds: 300 }, new Date()), timedOut)?.connect_failed, undefined)
    assert.equal(reportedOutcome({ kind: 'success' }, { response: { statusCode: 200, headers: {} }, latencyMs: 1 })?.connect_failed, undefined)
  })
})

describe('the probe gate rule', () => {
  it('lets one probe go at a time, one a second, and tells how long until the next', () => {
    const gate = { lastAt: 10_000, probing: false }
    assert.equal(gated({ cooldown_until: null }, gate), false)
    assert.equal(gated({ cooldown_until: '2026-03-01T10:00:00.000Z' }, undefined), false)
    assert.equal(gated({ cooldown_until: '2026-03-01T10:00:00.000Z' }, gate), true)
    assert.equal(probeAllowed(gate, 10_000 + PROBE_INTERVAL_MS - 1), false)
    assert.equal(probeWaitMs(gate, 10_400), PROBE_INTERVAL_MS - 400)
    assert.equal(probeAllowed(gate, 10_000 + PROBE_INTERVAL_MS), true)
    // A clock gone back does not hold the member out until it catches up.
    assert.equal(probeAllowed(gate, 5_000), true)
    const out = { lastAt: 10_000, probing: true }
    assert.equal(probeAllowed(out, 20_000), false)
    assert.equal(probeWaitMs(out, 20_000), PROBE_RECHECK_MS)
    assert.deepEqual(['consecutive_failures', 'probe_failed', 'rate_limited', 'credentials_rejected', 'health_check', null].map(probeEndsCooldown), [true, true, false, false, false, false])
  })
})

for (const dialect of dialects) {
  describeOn(dialect, 'failed connections through the proxy: any method moves on, one probe a second', () => {
    let t: TestApp
    const closers: Array<() => Promise<void>> = []
    const start = async (behave: Parameters<typeof upstream>[0]): Promise<Upstream> => {
      const u = await upstream(behave)
      closers.push(u.close)
      return u
    }
    const raw = async (name: string): Promise<RawUpstream> => {
      const u = await rawUpstream(name)
      closers.push(u.close)
      return u
    }
    const proxied = async (poolId: number, method = 'GET') =>
      await t.app.inject({ method, url: `/api/pools/${poolId}/proxy/orders`, ...(method === 'GET' ? {} : { payload: { item: 7 } }) })

    beforeEach(async () => { t = await buildTestApp(dialect) })
    afterEach(async () => {
      await t.close()
      for (const close of closers.splice(0)) await close()
    })

    it('sends a POST on to the next member when the first refuses the connection (no Idempotency-Key, no retry_non_idempotent)', LIMIT, async () => {
      const working = await start(json(201, { created: true }))
      const { poolId, providers } = await poolOfUrls(t, 'refusing-first', [await refusingUrl(), working.url], { rotation_strategy: 'priority' }, {}, true)
      const res = await proxied(poolId, 'POST')
      assert.equal(res.statusCode, 201, res.body)
      assert.deepEqual(res.json(), { created: true })
      assert.equal(res.headers['x-sourcepool-attempts'], '2')
      assert.deepEqual(working.seen.map((s) => [s.method, s.body]), [['POST', '{"item":7}']])
      const history = (await t.request({ method: 'GET', url: `/api/pools/${poolId}/history` })).body.history
      assert.deepEqual(history.filter((h: any) => h.reason.startsWith('proxy:')).map((h: any) => [h.from_provider, h.to_provider, h.reason]), [['refusing-first-0', 'refusing-first-1', 'proxy:connect_error']])
      const members = (await t.request({ method: 'GET', url: `/api/pools/${poolId}` })).body.members
      assert.deepEqual(providers.map((id) => members.find((m: any) => m.provider_id === id).failure_count), [1, 0])
    })

    it('stops a POST with 502 when the first member answered 503, or took the request before resetting its connection', LIMIT, async () => {
      const working = await start(json(201, { created: true }))
      const failing = await start(json(503, { down: true }))
      const answered = await poolOfUrls(t, 'answering-first', [failing.url, working.url], { rotation_strategy: 'priority' }, {}, true)
      const res = await proxied(answered.poolId, 'POST')
      assert.equal(res.statusCode, 502, res.body)
      assert.deepEqual(res.json().attempts.map((a: any) => [a.provider_id, a.status_code]), [[answered.providers[0], 503]])
      const reset = await raw('reset')
      const written = await poolOfUrls(t, 'reset-first', [reset.url, working.url], { rotation_strategy: 'priority' }, {}, true)
      const cut = await proxied(written.poolId, 'POST')
      assert.equal(cut.statusCode, 502, cut.body)
      assert.deepEqual(cut.json().attempts.map((a: any) => [a.provider_id, a.error]), [[written.providers[0], 'connect_error']])
      assert.equal(reset.connects(), 1)
      assert.equal(working.seen.length, 0)
      // With retry_non_idempotent it moves on as before.
      await t.request({ method: 'PUT', url: `/api/pools/${answered.poolId}`, payload: { retry_non_idempotent: true } })
      assert.equal((await proxied(answered.poolId, 'POST')).statusCode, 201)
    })

    it('while every member resets its connections, connects to each at most once a second, answers the rest at once, and uses a member again within about a second of its return', LIMIT, async () => {
      const members = [await raw('a'), await raw('b')]
      const { poolId, providers } = await poolOfUrls(t, 'resetting', members.map((m) => m.url), { failure_threshold: 1 })
      const connects = () => members.map((m) => m.connects())
      const started = performance.now()
      const statuses: number[] = []
      const retryAfter = new Set<unknown>()
      const note = (res: Awaited<ReturnType<typeof proxied>>) => {
        statuses.push(res.statusCode)
        if (res.statusCode === 503) retryAfter.add(res.headers['retry-after'])
      }
      for (let i = 0; i < 20; i++) note(await proxied(poolId))
      for (const res of await Promise.all(Array.from({ length: 20 }, async () => await proxied(poolId)))) note(res)
      const elapsed = performance.now() - started
      const bound = 2 + Math.floor(elapsed / PROBE_INTERVAL_MS)
      for (const [i, n] of connects().entries()) assert.ok(n >= 1 && n <= bound, `member ${i}: ${n} connects in ${Math.round(elapsed)} ms (at most ${bound})`)
      // The pool's all-down answers: 502 for a request that tried someone, 503 (Retry-After: 1) for the others, at once.
      assert.deepEqual(statuses.filter((s) => s !== 502 && s !== 503), [])
      assert.ok(statuses.filter((s) => s === 503).length >= 40 - 2 * bound, statuses.join(' '))
      assert.deepEqual([...retryAfter], ['1'])

      // The second member answers again: a probe finds it within about a second, and it serves everyone from then on.
      const before = connects()
      ;(members[1] as RawUpstream).answer()
      const back = performance.now()
      let served: Awaited<ReturnType<typeof proxied>> | undefined
      while (served === undefined) {
        const res = await proxied(poolId)
        if (res.statusCode === 200) served = res
        else await sleep(20)
      }
      const tookMs = performance.now() - back
      assert.ok(tookMs <= 1_500, `served again after ${Math.round(tookMs)} ms`)
      assert.deepEqual(served.json(), { from: 'b' })
      for (let i = 0; i < 5; i++) assert.equal((await proxied(poolId)).statusCode, 200)
      const after = connects()
      assert.ok((after[0] as number) - (before[0] as number) <= 2 + Math.floor((performance.now() - back) / PROBE_INTERVAL_MS), `member a: ${after.join(', ')}`)
      const status = (await t.request({ method: 'GET', url: `/api/pools/${poolId}` })).body
      assert.equal(status.members.find((m: any) => m.provider_id === providers[1]).health, 'healthy')
      const history = (await t.request({ method: 'GET', url: `/api/pools/${poolId}/history` })).body.history
      assert.ok(history.some((h: any) => h.reason === 'recovered' && h.to_provider === 'resetting-1'), JSON.stringify(history.map((h: any) => h.reason)))
    })
  })
}
