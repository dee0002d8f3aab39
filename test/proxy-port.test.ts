/**
 * PROXY_PORT (issue 35): a second listener that serves the data plane alone, so the
 * admin API can stay on a private address. The service runs as its own process
 * (the compiled build when current), both ports bound: the proxy's URLs, by id and
 * by name, answer on both; every other route is 404 on PROXY_PORT; both ports share
 * one runtime (a provider's quota spent across them is exact); a CORS preflight is
 * answered there as on PORT; and the settings refuse what cannot work.
 */
import assert from 'node:assert/strict'
import { createServer } from 'node:net'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { json, upstream, type Upstream } from './upstreams.js'
import { openClient, until } from './ws-clients.js'
import { echoUpstream } from './ws-upstreams.js'
import { freePort, http, runMain, startServer, type ServerProcess } from './server-process.js'

describe('PROXY_PORT', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sourcepool-proxy-port-'))
  let service: ServerProcess
  let up: Upstream
  let proxyUrl = ''
  let poolId = 0
  before(async () => {
    up = await upstream(json(200, { ok: true }))
    const proxyPort = await freePort()
    proxyUrl = `http://127.0.0.1:${proxyPort}`
    service = await startServer({ DATABASE_URL: `sqlite:${join(dir, 'pools.db')}`, PROXY_PORT: String(proxyPort), CORS_ORIGINS: 'https://dash.example.com' })
    const provider = (await http('POST', `${service.url}/api/providers`, { name: 'metered', base_url: up.url, rate_limit: { requests: 6, per: 'day' } })).body.provider_id
    poolId = (await http('POST', `${service.url}/api/pools`, { name: 'quotes', category: 'market-data' })).body.pool_id
    assert.equal((await http('POST', `${service.url}/api/pools/${poolId}/members`, { provider_id: provider })).status, 200)
  })
  after(async () => {
    await service?.stop()
    await up?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('serves the data plane by id and by name, and nothing else (404, as an unknown path)', async () => {
    for (const path of [`/api/pools/${poolId}/proxy/a`, '/p/quotes/b']) {
      const answer = await fetch(`${proxyUrl}${path}`)
      assert.equal(answer.status, 200, path)
      assert.equal(answer.headers.get('x-sourcepool-provider'), 'metered')
      assert.deepEqual(await answer.json(), { ok: true })
    }
    for (const path of ['/api/pools', `/api/pools/${poolId}`, '/healthz', '/ui', '/openapi.json', '/metrics', `/api/pools/${poolId}/cache`]) {
      const answer = await fetch(`${proxyUrl}${path}`)
      assert.equal(answer.status, 404, path)
      assert.deepEqual(await answer.json(), { detail: 'Not Found' })
      assert.match(answer.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/)
    }
    assert.equal((await fetch(`${proxyUrl}/api/pools/${poolId}/cache`, { method: 'DELETE' })).status, 404)
  })

  it('carries streams on PROXY_PORT, and no other upgrade (the v1 chat is PORT\'s)', async () => {
    const echo = await echoUpstream()
    try {
      const provider = (await http('POST', `${service.url}/api/providers`, { name: 'echo', base_url: echo.url.replace('ws:', 'http:') })).body.provider_id
      const pool = (await http('POST', `${service.url}/api/pools`, { name: 'feed', category: 'market-data' })).body.pool_id
      await http('POST', `${service.url}/api/pools/${pool}/members`, { provider_id: provider })
      const client = await openClient(`${proxyUrl.replace('http:', 'ws:')}/p/feed/`)
      client.ws.send('ping')
      await until(() => client.messages.length === 1, 5_000, 'the echo')
      client.ws.close()
      await client.closed
      await assert.rejects(openClient(`${proxyUrl.replace('http:', 'ws:')}/api/v1/ws/chat`), /socket hang up|ECONNRESET/)
      const chat = await openClient(`${service.url.replace('http:', 'ws:')}/api/v1/ws/chat`)
      chat.ws.close()
    } finally {
      await echo.close()
    }
  })

  it('answers what Node would answer bare as PORT does: malformed HTTP and an unmet Expect get a {"detail"} body and an id', async () => {
    const { connect } = await import('node:net')
    const raw = async (base: string, text: string) => await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(new URL(base).port), '127.0.0.1', () => { socket.write(text) })
      let got = ''
      socket.on('data', (chunk) => { got += String(chunk) })
      socket.on('close', () => { resolve(got) })
      socket.on('error', reject)
      setTimeout(() => { socket.destroy() }, 2000)
    })
    for (const base of [service.url, proxyUrl]) {
      const malformed = await raw(base, 'GET /p/quotes/x HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n')
      assert.match(malformed, /^HTTP\/1\.1 400 Bad Request\r\n/, base)
      assert.match(malformed, /X-Request-Id: [0-9a-f-]{36}/i, base)
      assert.match(malformed, /\{"detail":"Malformed request"\}$/, base)
      const expect = await raw(base, 'GET /p/quotes/x HTTP/1.1\r\nHost: x\r\nExpect: foo\r\nConnection: close\r\n\r\n')
      assert.match(expect, /^HTTP\/1\.1 417 /, base)
      assert.match(expect, /"detail":"Expectation failed: only Expect: 100-continue is supported"/, base)
    }
  })

  it('answers a CORS preflight as PORT does', async () => {
    const ask = async (base: string) => await fetch(`${base}/p/quotes/x`, {
      method: 'OPTIONS',
      headers: { origin: 'https://dash.example.com', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' }
    })
    const [main, proxy] = [await ask(service.url), await ask(proxyUrl)]
    assert.equal(proxy.status, main.status)
    for (const name of ['access-control-allow-origin', 'access-control-allow-methods', 'access-control-allow-headers', 'access-control-max-age', 'vary', 'content-length']) {
      assert.equal(proxy.headers.get(name), main.headers.get(name), name)
    }
  })

  it('shares one runtime with PORT: a quota spent across both ports is exact', async () => {
    // Two requests spent above; four more across the two ports use the day's six, the next is refused.
    const urls = [service.url, proxyUrl, service.url, proxyUrl].map((base) => `${base}/api/pools/${poolId}/proxy/q`)
    for (const url of urls) assert.equal((await fetch(url)).status, 200, url)
    for (const base of [proxyUrl, service.url]) {
      const refused = await fetch(`${base}/p/quotes/q`)
      assert.equal(refused.status, 503, base)
      assert.deepEqual(await refused.json(), { detail: `No available providers in pool ${poolId}` })
    }
    const pool = (await http('GET', `${service.url}/api/pools/${poolId}`)).body
    assert.equal(pool.members[0].quota.used, 6)
  })

  it('refuses settings that cannot work, in one line each', async () => {
    const base = { DATABASE_URL: `sqlite:${join(dir, 'other.db')}`, HOST: '127.0.0.1', LOG_LEVEL: 'warn' }
    const same = await runMain({ ...base, PORT: '8123', PROXY_PORT: '8123' })
    assert.equal(same.code, 2)
    assert.match(same.stderr, /PROXY_PORT: 8123 is PORT itself/)
    const hostAlone = await runMain({ ...base, PROXY_HOST: '127.0.0.1' })
    assert.equal(hostAlone.code, 2)
    assert.match(hostAlone.stderr, /PROXY_HOST: set PROXY_PORT too/)
    const open = await runMain({ ...base, PROXY_PORT: '8124', PROXY_HOST: '0.0.0.0' })
    assert.equal(open.code, 2)
    assert.match(open.stderr, /PROXY_HOST: refusing to serve 0\.0\.0\.0 without authentication/)
    // A PROXY_PORT in use stops the start, naming PROXY_PORT (nothing migrated).
    const taken = createServer()
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
    try {
      const port = (taken.address() as { port: number }).port
      const busy = await runMain({ ...base, PORT: String(await freePort()), PROXY_PORT: String(port) })
      assert.equal(busy.code, 1)
      assert.match(busy.stderr, new RegExp(`127\\.0\\.0\\.1:${port} is already in use; set PROXY_PORT \\(or PROXY_HOST\\) to another`))
    } finally {
      await new Promise((resolve) => taken.close(resolve))
    }
  })
})
