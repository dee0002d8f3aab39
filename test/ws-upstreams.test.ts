/**
 * The scripted WebSocket upstreams (ws-upstreams.ts) do what the stream tests rely on,
 * each seen once from a `ws` client: the ticker's subscriptions tick in seq order, its
 * path form streams unasked, connections are recorded (path, headers, subprotocols,
 * messages), dropAll ends them without a close frame, closeAll with one, refused
 * upgrades answer their status, stopPonging leaves a ping unanswered, sendRaw sends its
 * size, and the echo answers text and binary as they came.
 */
import assert from 'node:assert/strict'
import { afterEach, describe, it } from 'node:test'
import WebSocket, { type ClientOptions } from 'ws'
import { echoUpstream, tickerUpstream, type WsUpstream } from './ws-upstreams.js'

type Received = Array<string | Buffer>
/** What a client received, in order, and ways to wait for more. */
interface Inbox {
  messages: Received
  /** Answers the messages once `done` holds of them. */
  until: (done: (messages: Received) => boolean) => Promise<Received>
  /** Answers the first `n` messages once they came. */
  count: (n: number) => Promise<Received>
}

/** A client connected to `url`, and its inbox. */
async function connected (url: string, protocols: string[] = [], options: ClientOptions = {}): Promise<{ ws: WebSocket, inbox: Inbox }> {
  const ws = new WebSocket(url, protocols, options)
  const messages: Received = []
  let wake = () => {}
  ws.on('message', (data: Buffer, binary) => { messages.push(binary ? data : data.toString()); wake() })
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
  const until = async (done: (messages: Received) => boolean) => {
    while (!done(messages)) await new Promise<void>((resolve) => { wake = resolve })
    return messages
  }
  const count = async (n: number) => (await until(() => messages.length >= n)).slice(0, n)
  return { ws, inbox: { messages, until, count } }
}

/** Waits until `done` holds, looking every 5 ms: the server's side of a close ends a moment after the client's. */
async function until (done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 5))
}

const closeOf = async (ws: WebSocket) => await new Promise<[number, string]>((resolve) => ws.once('close', (code, reason) => resolve([code, reason.toString()])))
const parsed = (messages: Received): any[] => messages.map((m) => JSON.parse(m.toString()))

describe('scripted WebSocket upstreams', () => {
  let up: WsUpstream | undefined
  const clients: WebSocket[] = []
  afterEach(async () => {
    for (const ws of clients.splice(0)) ws.terminate()
    await up?.close()
  })

  it('ticks each subscribed symbol in seq order and records the connection', async () => {
    const ticker = up = await tickerUpstream()
    const { ws, inbox } = await connected(ticker.url, [], { headers: { authorization: 'Bearer key-1' } })
    clients.push(ws)
    const subscribe = (symbol: string) => JSON.stringify({ op: 'subscribe', channel: 'ticker', symbol })
    ws.send(subscribe('BTC-USD'))
    ws.send(subscribe('ETH-USD'))
    const ticksOf = (got: any[], symbol: string) => got.filter((m) => m.symbol === symbol && m.event === undefined)
    // The ticks of one symbol may start before the other is subscribed: each is checked on its own.
    const got = parsed(await inbox.until((messages) => ticksOf(parsed(messages), 'ETH-USD').length >= 3))
    for (const symbol of ['BTC-USD', 'ETH-USD']) {
      const answers = got.filter((m) => m.symbol === symbol)
      assert.deepEqual(answers[0], { event: 'subscribed', channel: 'ticker', symbol }, 'subscribed before its first tick')
      assert.deepEqual(ticksOf(answers, symbol).slice(0, 3), [1, 2, 3].map((seq) => ({ channel: 'ticker', symbol, seq, price: 100 + seq })))
    }
    const [seen] = ticker.connections
    assert.equal(seen?.path, '/')
    assert.equal(seen?.headers.authorization, 'Bearer key-1')
    assert.deepEqual(seen?.messages, [subscribe('BTC-USD'), subscribe('ETH-USD')])
  })

  it('streams the symbol of a /ws/<symbol>@ticker path unasked, a tick at a time when intervalMs is 0', async () => {
    const ticker = up = await tickerUpstream({ intervalMs: 0 })
    const { ws, inbox } = await connected(`${ticker.url}/ws/btcusdt@ticker`)
    clients.push(ws)
    ticker.tick()
    ticker.tick()
    assert.deepEqual(parsed(await inbox.count(2)), [1, 2].map((seq) => ({ channel: 'ticker', symbol: 'btcusdt', seq, price: 100 + seq })))
    assert.equal(ticker.connections[0]?.path, '/ws/btcusdt@ticker')
  })

  it('drops every connection without a close frame, or closes them with a code', async () => {
    up = await echoUpstream()
    const first = await connected(up.url)
    const second = await connected(up.url)
    clients.push(first.ws, second.ws)
    const dropped = [closeOf(first.ws), closeOf(second.ws)]
    up.dropAll()
    assert.deepEqual(await Promise.all(dropped), [[1006, ''], [1006, '']])
    const third = await connected(up.url)
    clients.push(third.ws)
    const closed = closeOf(third.ws)
    up.closeAll(4001, 'bye')
    assert.deepEqual(await closed, [4001, 'bye'])
    await until(() => up?.connections[2]?.closed !== undefined)
    assert.deepEqual(up.connections.map((c) => c.closed?.code), [1006, 1006, 4001])
  })

  it('answers upgrades with the status asked until it accepts them again', async () => {
    up = await echoUpstream()
    up.refuseUpgrades(429)
    const ws = new WebSocket(up.url)
    ws.on('error', () => {}) // terminate() during the handshake: the refusal, as the client meets it
    const status = await new Promise<number | undefined>((resolve) => ws.once('unexpected-response', (_req, res) => { resolve(res.statusCode); ws.terminate() }))
    assert.equal(status, 429)
    assert.equal(up.refused, 1)
    up.acceptUpgrades()
    clients.push((await connected(up.url)).ws)
    assert.equal(up.connections.length, 1)
  })

  it('stops answering pings', async () => {
    up = await echoUpstream()
    const { ws, inbox } = await connected(up.url)
    clients.push(ws)
    let pongs = 0
    ws.on('pong', () => { pongs++ })
    // The server handles frames in order: the echo of a message sent after a ping comes after its pong.
    ws.ping()
    ws.send('after the first ping')
    await inbox.count(1)
    assert.equal(pongs, 1)
    up.stopPonging()
    ws.ping()
    ws.send('after the second ping')
    await inbox.count(2)
    assert.equal(pongs, 1, 'no pong for the second ping')
    assert.equal(up.connections[0]?.pings, 2)
  })

  it('chooses the first subprotocol the client offers of those it accepts', async () => {
    up = await tickerUpstream({ intervalMs: 0, protocols: ['v2.ticker', 'v1.ticker'] })
    const { ws } = await connected(up.url, ['v0.ticker', 'v1.ticker', 'v2.ticker'])
    clients.push(ws)
    assert.equal(ws.protocol, 'v1.ticker')
    assert.deepEqual(up.connections.map((c) => [c.protocolsAsked, c.protocol]), [[['v0.ticker', 'v1.ticker', 'v2.ticker'], 'v1.ticker']])
  })

  it('sends a message of the size asked, and echoes text and binary as they came', async () => {
    up = await echoUpstream()
    const { ws, inbox } = await connected(up.url)
    clients.push(ws)
    up.sendRaw(1000)
    ws.send('hello')
    ws.send(Buffer.from([0, 1, 2]))
    const [raw, text, binary] = await inbox.count(3)
    assert.equal(typeof raw === 'string' && Buffer.byteLength(raw), 1000)
    assert.equal(JSON.parse(raw?.toString() ?? '').pad.length, 990)
    assert.equal(text, 'hello')
    assert.deepEqual(binary, Buffer.from([0, 1, 2]))
    assert.deepEqual(up.connections[0]?.messages, ['hello', Buffer.from([0, 1, 2])])
  })
})
