/**
 * WebSocket streams through an `http` pool (issue 37 items 1, 2, 5), end to end on
 * real sockets: a client's stream through `/p/{name}/…` and `/api/pools/{id}/proxy/…`
 * reaches the chosen member's WebSocket (path, query, subprotocol, the provider's
 * credentials; never the client's token); when the member drops the stream, misses
 * its pong or refuses the upgrade, another takes it over without the client seeing
 * it, the subscription message replayed, and the history shows `stream_failover`;
 * the bounds answer 429 before the upgrade and close with 1009 and 1000 as
 * documented; a shutdown closes with 1001.
 */
import assert from 'node:assert/strict'
import { after, afterEach, before, beforeEach, it } from 'node:test'
import WebSocket, { WebSocketServer } from 'ws'
import { poolOfUrls } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, sqlite, type TestApp } from '../../test/helpers.js'
import { echoUpstream, tickerUpstream, type TickerUpstream, type WsUpstream } from '../../test/ws-upstreams.js'
import { openClient, until, type Client } from '../../test/ws-clients.js'

/** The status of a refused upgrade. */
async function refusal (url: string, headers: Record<string, string> = {}): Promise<{ status: number, body: any }> {
  try {
    const client = await openClient(url, [], headers)
    client.ws.terminate()
    throw new Error('the upgrade was taken')
  } catch (error) {
    const { status, body } = error as { status?: number, body?: string }
    if (status === undefined) throw error
    return { status, body: JSON.parse(body as string) }
  }
}

const tickers = (messages: string[]) => messages.map((m) => JSON.parse(m)).filter((m) => m.channel === 'ticker')
const SUBSCRIBE = JSON.stringify({ op: 'subscribe', channel: 'ticker', symbol: 'BTC-USD' })
const SUBSCRIBE_ETH = JSON.stringify({ op: 'subscribe', channel: 'ticker', symbol: 'ETH-USD' })

for (const dialect of dialects) {
  describeOn(dialect, 'WebSocket streams through an http pool', () => {
    let t: TestApp
    let base: string
    const ups: Array<WsUpstream | TickerUpstream> = []
    before(async () => {
      t = await buildTestApp(dialect)
      await t.app.listen({ port: 0, host: '127.0.0.1' })
      base = `ws://127.0.0.1:${(t.app.server.address() as { port: number }).port}`
    })
    after(async () => { await t.close() })
    afterEach(async () => { for (const up of ups.splice(0)) await up.close() })
    let n = 0
    let name: string
    beforeEach(() => { name = `stream-${dialect.name}-${++n}` })

    it('relays both ways through /p/{name} and the id route: path, query, subprotocol and the provider\'s credentials; never the client\'s token', async () => {
      const echo = await echoUpstream({ protocols: ['v2.ticker'] })
      ups.push(echo)
      const { poolId } = await poolOfUrls(t, name, [echo.url.replace('ws:', 'http:')], {}, { auth_headers: { 'x-api-key': 'provider-key' } })
      for (const url of [`${base}/p/${name}/ws/feed?x=1`, `${base}/api/pools/${poolId}/proxy/ws/feed?x=1`]) {
        const client = await openClient(url, ['v1.ticker', 'v2.ticker'], { authorization: 'Bearer client-token', 'x-forwarded-host': 'evil.example' })
        assert.equal(client.ws.protocol, 'v2.ticker')
        client.ws.send('hello')
        client.ws.send(Buffer.from([1, 2, 3]), { binary: true })
        await until(() => client.messages.length === 2, 5_000, 'two echoes')
        assert.equal(client.messages[0], 'hello')
        client.ws.close()
        assert.equal((await client.closed).code, 1005)
      }
      const seen = echo.connections[0]
      assert.equal(seen?.path, '/ws/feed?x=1')
      assert.deepEqual(seen?.protocolsAsked, ['v1.ticker', 'v2.ticker'])
      assert.equal(seen?.headers['x-api-key'], 'provider-key')
      assert.equal(seen?.headers.authorization, undefined)
      assert.equal(seen?.headers['x-forwarded-host'], undefined)
      assert.deepEqual(seen?.messages.map(String), ['hello', '\u0001\u0002\u0003'])
    })

    it('moves a dropped stream to another member without the client seeing it: the subscription replayed, ticks going on, stream_failover in the history', async () => {
      const a = await tickerUpstream({ intervalMs: 10 })
      const b = await tickerUpstream({ intervalMs: 10 })
      ups.push(a, b)
      const { poolId, providers } = await poolOfUrls(t, name, [a.url, b.url].map((u) => u.replace('ws:', 'http:')), { rotation_strategy: 'priority', ws_replay: 1 }, {}, true)
      const client = await openClient(`${base}/p/${name}/`)
      client.ws.send(SUBSCRIBE)
      await until(() => tickers(client.messages).length >= 3, 5_000, 'ticks from the first member')
      assert.equal(a.connections.length, 1)
      a.dropAll()
      // Sent once the loss is known (while the stream moves, or just after): not a kept message (ws_replay 1), it still reaches the next member, after the replay.
      await until(() => t.app.streams.registry.counts(poolId).failovers === 1, 5_000, 'the loss seen')
      client.ws.send(SUBSCRIBE_ETH)
      // After the second member's answer to the replayed subscription, its BTC ticks from seq 1.
      const parsed = () => client.messages.map((m) => JSON.parse(m) as { event?: string, symbol?: string, seq?: number })
      const btcFromSecond = () => {
        const all = parsed()
        return all.slice(all.map((m) => m.event === 'subscribed' && m.symbol === 'BTC-USD').lastIndexOf(true)).filter((m) => m.symbol === 'BTC-USD' && m.seq !== undefined)
      }
      const answered = () => parsed().filter((m) => m.event === 'subscribed').map((m) => m.symbol)
      await until(() => answered().length === 3 && btcFromSecond().length >= 3, 5_000, 'the second member\'s answers and ticks')
      assert.deepEqual(btcFromSecond().slice(0, 3).map((m) => m.seq), [1, 2, 3])
      assert.deepEqual(answered(), ['BTC-USD', 'BTC-USD', 'ETH-USD'], 'the first member\'s answer, then the second\'s to the replay and to what was sent meanwhile: the client saw no close')
      await until(() => b.connections[0]?.messages.length === 2, 5_000, 'the message sent meanwhile')
      assert.deepEqual(b.connections[0]?.messages.map(String), [SUBSCRIBE, SUBSCRIBE_ETH])
      assert.equal(client.ws.readyState, WebSocket.OPEN)
      await t.app.runtime.flush()
      const history = await t.request({ method: 'GET', url: `/api/pools/${poolId}/history` })
      const moved = history.body.history.filter((r: { reason: string }) => r.reason === 'stream_failover')
      assert.deepEqual(moved.map((r: { from_provider: string, to_provider: string }) => [r.from_provider, r.to_provider]), [[`${name}-0`, `${name}-1`]])
      const status = await t.request({ method: 'GET', url: `/api/pools/${poolId}` })
      const { messages_to_clients: toClients, messages_to_upstreams: toUpstreams, ...streams } = status.body.streams
      assert.deepEqual(streams, { open: 1, subscriptions: 0, failovers: 1, upstreams: [{ provider_id: providers[1], open: 1 }] })
      assert.ok(toClients >= 8, `messages to the client: ${toClients as number}`)
      assert.equal(toUpstreams, 3, 'the subscription, its replay, and the message sent meanwhile')
      const metrics = await (await fetch(`${base.replace('ws:', 'http:')}/metrics`)).text()
      assert.match(metrics, new RegExp(`sourcepool_streams_open\\{pool_id="${poolId}"\\} 1\n`))
      assert.match(metrics, new RegExp(`sourcepool_stream_failovers_total\\{pool_id="${poolId}"\\} 1\n`))
      assert.match(metrics, new RegExp(`sourcepool_stream_upstreams_open\\{pool_id="${poolId}",provider_id="${providers[1] as number}"\\} 1\n`))
      client.ws.close()
    })

    it('moves on from a member that refuses the upgrade or never answers its pings', async () => {
      const a = await tickerUpstream({ intervalMs: 0 })
      const b = await tickerUpstream({ intervalMs: 0 })
      ups.push(a, b)
      await poolOfUrls(t, name, [a.url, b.url].map((u) => u.replace('ws:', 'http:')), { rotation_strategy: 'priority', ws_ping_interval_ms: 1000 }, {}, true)
      a.refuseUpgrades(403)
      const first = await openClient(`${base}/p/${name}/ws/btc@ticker`)
      assert.equal(b.connections.length, 1, 'the refused upgrade moved on')
      first.ws.close()
      a.acceptUpgrades()
      await until(() => b.connections[0]?.closed !== undefined, 5_000, 'the first stream closed upstream')
      b.stopPonging()
      const second = await openClient(`${base}/p/${name}/ws/btc@ticker`)
      const on = a.connections.length === 1 ? a : b
      const other = on === a ? b : a
      if (on === b) { b.refuseUpgrades(503) }
      on.stopPonging()
      await until(() => other.connections.some((c) => c.closed === undefined && c.path === '/ws/btc@ticker' && c !== on.connections.at(-1)), 6_000, 'the stream on another member after a missed pong')
      assert.equal(second.ws.readyState, WebSocket.OPEN)
      second.ws.close()
    })

    it('answers an upgrade no member can take as HTTP: 502 with the attempts, 503 with none, 404 for an unknown pool', async () => {
      const a = await tickerUpstream({ intervalMs: 0 })
      ups.push(a)
      const { poolId } = await poolOfUrls(t, name, [a.url.replace('ws:', 'http:')])
      a.refuseUpgrades(500)
      const failed = await refusal(`${base}/p/${name}/`)
      assert.equal(failed.status, 502)
      assert.equal(failed.body.detail, `All providers failed for pool ${poolId}`)
      assert.equal(failed.body.attempts[0].status_code, 500)
      const empty = await t.request({ method: 'POST', url: '/api/pools', payload: { name: `${name}-empty`, category: 'market' } })
      const none = await refusal(`${base}/p/${name}-empty/`)
      assert.deepEqual(none, { status: 503, body: { detail: `No available providers in pool ${empty.body.pool_id as number}` } })
      assert.deepEqual(await refusal(`${base}/p/nope-${name}/`), { status: 404, body: { detail: `Pool 'nope-${name}' not found` } })
    })

    it('holds the bounds: 429 before the upgrade past ws_max_streams and ws_max_streams_per_client, 1009 for a message too large either way, 1000 when idle', async () => {
      const echo = await echoUpstream()
      ups.push(echo)
      const { poolId } = await poolOfUrls(t, name, [echo.url.replace('ws:', 'http:')], { ws_max_streams: 2, ws_max_streams_per_client: 1, ws_max_message_bytes: 1024, ws_idle_timeout_ms: 300 })
      const one = await openClient(`${base}/p/${name}/`)
      const perClient = await refusal(`${base}/p/${name}/`)
      assert.equal(perClient.status, 429)
      assert.equal(perClient.body.detail, `This client has 1 streams open in pool ${poolId}, its ws_max_streams_per_client`)
      assert.equal((await t.request({ method: 'PUT', url: `/api/pools/${poolId}`, payload: { ws_max_streams_per_client: 5, ws_max_streams: 1 } })).status, 200)
      const pool = await refusal(`${base}/p/${name}/`)
      assert.equal(pool.status, 429)
      assert.equal(pool.body.detail, `Pool ${poolId} has 1 streams open, its ws_max_streams`)
      one.ws.send('x'.repeat(1025))
      assert.equal((await one.closed).code, 1009)
      const two = await openClient(`${base}/p/${name}/`)
      echo.sendRaw(2048)
      assert.equal((await two.closed).code, 1009)
      const three = await openClient(`${base}/p/${name}/`)
      three.ws.send('keep')
      const idle = await three.closed
      assert.deepEqual([idle.code, idle.reason], [1000, 'idle for ws_idle_timeout_ms'])
    })

    it('shares one upstream among clients of one path that send nothing; one that speaks gets its own; a client that falls behind is closed with 1013 while the others keep up', async () => {
      const ticker = await tickerUpstream({ intervalMs: 0 })
      ups.push(ticker)
      const { poolId } = await poolOfUrls(t, name, [ticker.url.replace('ws:', 'http:')], { ws_send_buffer_bytes: 2 * 1024 * 1024 })
      const clients = await Promise.all([1, 2, 3].map(async () => await openClient(`${base}/p/${name}/ws/eth@ticker`)))
      assert.equal(ticker.connections.length, 1, 'one upstream for three')
      ticker.tick()
      await until(() => clients.every((c) => c.messages.length === 1), 5_000, 'the tick to all three')
      const [slow, speaker, reader] = clients as [Client, Client, Client]
      speaker.ws.send(SUBSCRIBE)
      await until(() => ticker.connections.length === 2 && ticker.connections[1]?.messages.length === 1, 5_000, 'the speaker on its own upstream')
      assert.deepEqual(ticker.connections[1]?.messages.map(String), [SUBSCRIBE])
      assert.equal(ticker.connections[1]?.path, '/ws/eth@ticker')
      const socket = (slow.ws as unknown as { _socket: { pause: () => void, resume: () => void } })._socket
      socket.pause()
      // A megabyte every 20 ms: the reader takes each as it comes, the paused client's pile grows past kernel buffers and ws_send_buffer_bytes.
      for (let i = 0; i < 24; i++) {
        ticker.sendRaw(1_000_000)
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      await until(() => t.app.streams.registry.counts(poolId).open === 2, 20_000, 'the slow client dropped')
      await until(() => reader.messages.length === 25, 20_000, 'every message to the reader')
      socket.resume()
      const closed = await slow.closed
      assert.deepEqual([closed.code, closed.reason], [1013, 'the client fell behind: its send buffer is full'])
      assert.equal(reader.ws.readyState, WebSocket.OPEN)
      reader.ws.close()
      speaker.ws.close()
    })

    it('spends one use of the provider\'s quota per upstream connection: three clients sharing one spend one, a stream of its own one more', async () => {
      const ticker = await tickerUpstream({ intervalMs: 0 })
      ups.push(ticker)
      const { poolId } = await poolOfUrls(t, name, [ticker.url.replace('ws:', 'http:')], {}, { rate_limit: { requests: 100, per: 'day' } })
      const shared = await Promise.all([1, 2, 3].map(async () => await openClient(`${base}/p/${name}/ws/sol@ticker`)))
      const own = await openClient(`${base}/p/${name}/ws/btc@ticker?depth=5`)
      assert.equal(ticker.connections.length, 2)
      await t.app.runtime.flush()
      const status = await t.request({ method: 'GET', url: `/api/pools/${poolId}` })
      assert.equal(status.body.members[0].quota.used, 2)
      for (const client of [...shared, own]) client.ws.close()
    })

    it('counts a stream from its upgrade: upgrades still waiting for a slow member hold their place in the bounds', async () => {
      const slow = new WebSocketServer({ port: 0, host: '127.0.0.1', verifyClient: (_info, done) => { setTimeout(() => { done(true) }, 300) } })
      await new Promise((resolve) => slow.once('listening', resolve))
      try {
        const url = `http://127.0.0.1:${(slow.address() as { port: number }).port}`
        await poolOfUrls(t, name, [url], { ws_max_streams: 3, ws_max_streams_per_client: 2 })
        const tries = await Promise.allSettled(Array.from({ length: 10 }, async () => await openClient(`${base}/p/${name}/`)))
        assert.equal(tries.filter((r) => r.status === 'fulfilled').length, 2)
        assert.ok(tries.every((r) => r.status === 'fulfilled' || (r.reason as { status?: number }).status === 429))
        for (const r of tries) if (r.status === 'fulfilled') r.value.ws.close()
      } finally {
        for (const ws of slow.clients) ws.terminate()
        await new Promise((resolve) => slow.close(resolve))
      }
    })

    it('refuses a handshake whose subprotocols repeat, before any member is asked', async () => {
      const echo = await echoUpstream()
      ups.push(echo)
      await poolOfUrls(t, name, [echo.url.replace('ws:', 'http:')])
      const refused = await refusal(`${base}/p/${name}/`, { 'sec-websocket-protocol': 'a, a' })
      assert.deepEqual(refused, { status: 400, body: { detail: 'Malformed WebSocket upgrade: Sec-WebSocket-Protocol must list distinct tokens' } })
      assert.equal(echo.connections.length, 0)
    })

    it('shares nothing of a client\'s own headers: a client with a key of its own gets its own connection, the shared one carries none', async () => {
      const echo = await echoUpstream()
      ups.push(echo)
      await poolOfUrls(t, name, [echo.url.replace('ws:', 'http:')])
      const keyed = await openClient(`${base}/p/${name}/feed`, [], { 'x-api-key': 'alice-secret' })
      const plain = await Promise.all([1, 2].map(async () => await openClient(`${base}/p/${name}/feed`, [], { 'user-agent': 'app/1' })))
      assert.equal(echo.connections.length, 2, 'the keyed client alone, the plain ones together')
      assert.equal(echo.connections[0]?.headers['x-api-key'], 'alice-secret')
      assert.equal(echo.connections[1]?.headers['x-api-key'], undefined)
      assert.equal(echo.connections[1]?.headers['user-agent'], undefined, 'no client\'s headers on a shared connection')
      // A plain client that speaks leaves for a connection of its own, with everything it said.
      const [speaker] = plain as [Client, Client]
      for (const text of ['one', 'two', 'three']) speaker.ws.send(text)
      await until(() => speaker.messages.length === 3, 5_000, 'three echoes')
      assert.deepEqual(speaker.messages, ['one', 'two', 'three'])
      assert.equal(echo.connections[2]?.headers['user-agent'], 'app/1', 'its own connection carries its headers')
      for (const c of [keyed, ...plain]) c.ws.close()
    })
  })
}

it('gives a stream up (1014) when every member closes it as soon as it moves, instead of moving it in a loop', async () => {
  const closing = await Promise.all([1, 2].map(async () => {
    const server = new WebSocketServer({ port: 0, host: '127.0.0.1' })
    await new Promise((resolve) => server.once('listening', resolve))
    server.on('connection', (ws) => { ws.on('message', () => { ws.close(1000) }) })
    return server
  }))
  const t = await buildTestApp(sqlite, { random: () => 0 })
  try {
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    const { poolId } = await poolOfUrls(t, 'closing', closing.map((s) => `http://127.0.0.1:${(s.address() as { port: number }).port}`))
    const client = await openClient(`ws://127.0.0.1:${(t.app.server.address() as { port: number }).port}/p/closing/`)
    client.ws.send('subscribe')
    const closed = await client.closed
    assert.deepEqual([closed.code, closed.reason], [1014, 'every member the stream moved to closed it at once'])
    assert.equal(t.app.streams.registry.counts(poolId).failovers, 7)
  } finally {
    await t.close()
    for (const server of closing) await new Promise((resolve) => server.close(resolve))
  }
})

it('reads a client paused for a stalled member again once the stream has moved: what it sends then arrives', async () => {
  const stalled = new WebSocketServer({ port: 0, host: '127.0.0.1', autoPong: false })
  await new Promise((resolve) => stalled.once('listening', resolve))
  const echo = await echoUpstream()
  stalled.on('connection', (ws) => { (ws as unknown as { _socket: { pause: () => void } })._socket.pause() })
  const t = await buildTestApp(sqlite)
  try {
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    const urls = [`http://127.0.0.1:${(stalled.address() as { port: number }).port}`, echo.url.replace('ws:', 'http:')]
    await poolOfUrls(t, 'stalled', urls, { rotation_strategy: 'priority', ws_ping_interval_ms: 1000, ws_send_buffer_bytes: 65536, ws_replay: 'none' }, {}, true)
    const client = await openClient(`ws://127.0.0.1:${(t.app.server.address() as { port: number }).port}/p/stalled/`)
    const big = 'x'.repeat(60_000)
    for (let i = 0; i < 200; i++) client.ws.send(`${i}:${big}`)
    await until(() => echo.connections.length === 1, 10_000, 'the stream on the second member')
    await until(() => client.ws.bufferedAmount === 0, 10_000, 'everything the client sent taken')
    client.ws.send('after')
    await until(() => client.messages.includes('after'), 10_000, 'the echo of a message sent after the move')
    client.ws.close()
  } finally {
    await t.close()
    await echo.close()
    for (const ws of stalled.clients) ws.terminate()
    await new Promise((resolve) => stalled.close(resolve))
  }
})
