/**
 * The demo providers over real HTTP on loopback: prices with a real provider's headers,
 * the switches of POST /control, the minute's limit, ports and stopping.
 */
import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { after, describe, it } from 'node:test'
import { createDemoProvider, type DemoProviderOptions } from './demo-provider.js'
import { startDemo, type DemoProvider } from './demo.js'

/** A demo provider listening on a free port; its URL. */
async function provider (options: Partial<DemoProviderOptions> = {}): Promise<{ url: string, stop: () => Promise<void> }> {
  const { server, stop } = createDemoProvider({ name: 'demo-t', latencyMs: 0, limitPerMinute: 120, ...options })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, stop }
}

const control = async (url: string, body: string) => await fetch(`${url}/control`, { method: 'POST', body })

describe('a demo provider', () => {
  const stops: Array<() => Promise<void>> = []
  const started = async (options: Partial<DemoProviderOptions> = {}) => {
    const p = await provider(options)
    stops.push(p.stop)
    return p.url
  }
  after(async () => { await Promise.all(stops.map(async (stop) => await stop())) })

  it('answers a price with the headers a market-data API sends, and counts the calls per path and query', async () => {
    const url = await started()
    const first = await fetch(`${url}/v1/prices?symbol=btc`)
    assert.equal(first.status, 200)
    assert.equal(first.headers.get('cache-control'), 'max-age=30')
    assert.deepEqual(['x-ratelimit-limit', 'x-ratelimit-remaining'].map((h) => first.headers.get(h)), ['120', '119'])
    assert.match(first.headers.get('x-ratelimit-reset') ?? '', /^([1-9]|[1-5]\d|60)$/)
    const price = await first.json() as Record<string, unknown>
    assert.deepEqual(Object.keys(price), ['provider', 'symbol', 'price', 'at', 'calls'])
    assert.deepEqual([price.provider, price.symbol, price.calls], ['demo-t', 'BTC', 1])
    assert.ok(typeof price.price === 'number' && price.price > 60_000 && price.price < 68_000, String(price.price))
    const second = await (await fetch(`${url}/v1/prices?symbol=btc`, { method: 'POST' })).json() as Record<string, unknown>
    assert.equal(second.calls, 2)
    assert.equal((await (await fetch(`${url}/v1/prices?symbol=ETH`)).json() as Record<string, unknown>).calls, 1)
  })

  it('says what it lacks: a symbol (400), one it does not know (404), a path (404)', async () => {
    const url = await started()
    assert.deepEqual(await (await fetch(`${url}/v1/prices`)).json(), { error: 'symbol is required, such as ?symbol=BTC' })
    const unknown = await fetch(`${url}/v1/prices?symbol=DOGE`)
    assert.deepEqual([unknown.status, await unknown.json()], [404, { error: "unknown symbol 'DOGE': try BTC, ETH, SOL" }])
    assert.equal((await fetch(`${url}/v2/nothing`)).status, 404)
  })

  it('fails, rate-limits or slows down as POST /control says, and {} mends it', async () => {
    const url = await started()
    assert.deepEqual(await (await control(url, '{"fail":true}')).json(), { provider: 'demo-t', fail: true, slow_ms: 0, rate_limited: false })
    assert.equal((await fetch(`${url}/v1/prices?symbol=BTC`)).status, 503)
    assert.equal((await fetch(`${url}/health`)).status, 503)
    await control(url, '{"rate_limited":true}')
    const limited = await fetch(`${url}/v1/prices?symbol=BTC`)
    assert.deepEqual([limited.status, limited.headers.get('retry-after'), limited.headers.get('x-ratelimit-remaining')], [429, '10', '0'])
    assert.equal((await fetch(`${url}/health`)).status, 200)
    await control(url, '{"slow_ms":300}')
    const began = Date.now()
    assert.equal((await fetch(`${url}/v1/prices?symbol=BTC`)).status, 200)
    assert.ok(Date.now() - began >= 290, `answered after ${Date.now() - began} ms`)
    assert.deepEqual(await (await control(url, '{}')).json(), { provider: 'demo-t', fail: false, slow_ms: 0, rate_limited: false })
    assert.deepEqual(await (await fetch(`${url}/control`)).json(), { provider: 'demo-t', fail: false, slow_ms: 0, rate_limited: false })
  })

  it('refuses a control body it cannot read, in a sentence, and keeps its mode', async () => {
    const url = await started()
    for (const [body, error] of [
      ['{"fail":', 'the body must be JSON, such as {"fail": true}'],
      ['[1]', 'the body must be a JSON object, such as {"fail": true}'],
      ['{"fails":true}', "unknown field 'fails': the fields are fail, slow_ms and rate_limited"],
      ['{"fail":"yes"}', 'fail and rate_limited are true or false'],
      ['{"slow_ms":-1}', 'slow_ms is a whole number of ms, 0–60000']
    ]) {
      const res = await control(url, body as string)
      assert.deepEqual([res.status, await res.json()], [400, { error }], body)
    }
    assert.equal((await fetch(`${url}/health`)).status, 200)
  })

  it('answers 429 with Retry-After once the minute\'s requests are spent', async () => {
    const url = await started({ limitPerMinute: 2 })
    const last = (await Promise.all([1, 2].map(async () => await fetch(`${url}/v1/prices?symbol=SOL`)))).map((res) => res.headers.get('x-ratelimit-remaining')).sort()
    assert.deepEqual(last, ['0', '1'])
    const over = await fetch(`${url}/v1/prices?symbol=SOL`)
    assert.equal(over.status, 429)
    assert.match(over.headers.get('retry-after') ?? '', /^\d+$/)
  })
})

describe('startDemo', () => {
  it('starts demo-a, demo-b, demo-c, each slower than the one before, and stops them with an answer still owed', async () => {
    const demo = await startDemo({ port: 0 })
    assert.deepEqual(demo.providers.map((p) => [p.name, p.latencyMs]), [['demo-a', 200], ['demo-b', 250], ['demo-c', 300]])
    const a = demo.providers[0] as DemoProvider
    await control(a.url, '{"slow_ms":60000}')
    const owed = fetch(`${a.url}/v1/prices?symbol=BTC`).then(() => 'answered', () => 'cut')
    await demo.stop()
    assert.equal(await owed, 'cut')
    assert.equal(await fetch(`${a.url}/health`).then(() => 'open', () => 'closed'), 'closed')
  })

  it('says in a sentence that a port is taken', async () => {
    const taken = await provider()
    const port = Number(new URL(taken.url).port)
    try {
      await assert.rejects(startDemo({ port, count: 2 }), { message: `port ${port} is taken (is a demo already running?); choose other ports with --port` })
    } finally {
      await taken.stop()
    }
  })
})
