/**
 * The data plane outside Fastify's lifecycle (issue 35): a pool addressed by name
 * (`/p/{name}/…`) reaches the same stages as by id (one cache, one runtime), a
 * name follows the pool that holds it now, an unknown name is a 404 naming it; the requests Fastify
 * still takes for the proxy's URLs (an absolute-form target) are served the same;
 * and a pool's settings changed under load (the cache turned on and off) fail no
 * request, each answer saying what the cache did.
 */
import assert from 'node:assert/strict'
import { request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, it } from 'node:test'
import { addMember, createPool, createProvider } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, type TestApp } from '../../test/helpers.js'
import { upstream, type Upstream } from '../../test/upstreams.js'

/** A GET whose request target is sent byte for byte as given (an absolute form included). */
function rawGet (port: number, path: string): Promise<{ status: number, body: string, headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    httpRequest({ host: '127.0.0.1', port, path, method: 'GET' }, (res) => {
      const parts: Buffer[] = []
      res.on('data', (part: Buffer) => parts.push(part))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts).toString(), headers: res.headers }))
    }).on('error', reject).end()
  })
}

for (const dialect of dialects) {
  describeOn(dialect, 'the data plane', () => {
    let t: TestApp
    let up: Upstream
    let calls = 0
    let port = 0
    before(async () => {
      t = await buildTestApp(dialect)
      up = await upstream((req, res) => {
        calls++
        res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=60' })
        res.end(JSON.stringify({ path: req.url, n: calls }))
      })
      await t.app.listen({ port: 0, host: '127.0.0.1' })
      port = (t.app.server.address() as AddressInfo).port
    })
    after(async () => {
      await t.close()
      await up.close()
    })

    const poolNamed = async (name: string, extra: Record<string, unknown> = {}) => {
      const poolId = await createPool(t, name, extra)
      await addMember(t, poolId, await createProvider(t, `${name}-p`, { base_url: up.url }))
      return poolId
    }

    it('serves /p/{name}/… as /api/pools/{id}/proxy/…: same path and query upstream, same headers, same cache', async () => {
      const poolId = await poolNamed('market data', { cache_ttl_seconds: 60 })
      const byName = await t.request({ method: 'GET', url: '/p/market%20data/quotes?s=BTC' })
      assert.equal(byName.status, 200)
      assert.equal(byName.body.path, '/quotes?s=BTC')
      assert.equal(byName.headers['x-sourcepool-cache'], 'MISS')
      assert.equal(byName.headers['x-sourcepool-provider'], 'market data-p')
      assert.match(String(byName.headers['x-request-id']), /^[0-9a-f-]{36}$/)
      // One pool, one cache: the id form finds the answer the name form stored.
      const byId = await t.request({ method: 'GET', url: `/api/pools/${poolId}/proxy/quotes?s=BTC` })
      assert.equal(byId.headers['x-sourcepool-cache'], 'HIT')
      assert.deepEqual(byId.body, byName.body)
      // And over a real socket, as a client sends it.
      const raw = await rawGet(port, '/p/market%20data/quotes?s=BTC')
      assert.equal(raw.status, 200)
      assert.equal(raw.headers['x-sourcepool-cache'], 'HIT')
    })

    it('answers an unknown name 404 naming it, and follows the name to whichever pool holds it now', async () => {
      const missing = await t.request({ method: 'GET', url: '/p/nope/x' })
      assert.equal(missing.status, 404)
      assert.deepEqual(missing.body, { detail: "Pool 'nope' not found" })
      const first = await poolNamed('reused')
      assert.equal((await t.request({ method: 'GET', url: '/p/reused/x' })).headers['x-sourcepool-provider'], 'reused-p')
      // Pools cannot be renamed through the API: a name moves by deleting its pool and creating another.
      assert.equal((await t.request({ method: 'DELETE', url: `/api/pools/${first}` })).status, 200)
      assert.deepEqual((await t.request({ method: 'GET', url: '/p/reused/x' })).body, { detail: "Pool 'reused' not found" })
      const second = await createPool(t, 'reused')
      await addMember(t, second, await createProvider(t, 'reused-q', { base_url: up.url }))
      const moved = await t.request({ method: 'GET', url: '/p/reused/x' })
      assert.equal(moved.status, 200)
      assert.equal(moved.headers['x-sourcepool-provider'], 'reused-q')
    })

    it('serves an absolute-form target (which Fastify routes) through the same stages, by id and by name', async () => {
      const poolId = await poolNamed('absolute')
      const byId = await rawGet(port, `http://127.0.0.1:${port}/api/pools/${poolId}/proxy/abs?q=1`)
      assert.equal(byId.status, 200, byId.body)
      assert.equal(JSON.parse(byId.body).path, '/abs?q=1')
      assert.equal(byId.headers['x-sourcepool-provider'], 'absolute-p')
      const byName = await rawGet(port, `http://127.0.0.1:${port}/p/absolute/abs?q=2`)
      assert.equal(byName.status, 200, byName.body)
      assert.equal(JSON.parse(byName.body).path, '/abs?q=2')
    })

    it('keeps the answers of malformed proxy URLs: an id that is not one (422), a path that is not percent-encoding (400), no trailing path (404)', async () => {
      assert.equal((await rawGet(port, '/api/pools/abc/proxy/x')).status, 422)
      assert.equal((await rawGet(port, '/api/pools/0/proxy/x')).status, 422)
      assert.deepEqual(JSON.parse((await rawGet(port, '/api/pools/1/proxy/%zz')).body), { detail: 'Malformed request: the path is not valid percent-encoding' })
      assert.equal((await rawGet(port, '/p/%zz/x')).status, 400)
      assert.deepEqual(JSON.parse((await rawGet(port, '/api/pools/1/proxy')).body), { detail: 'Not Found' })
    })

    it('lets go of the provider at once when the client leaves before the answer starts (its connection is not held)', async () => {
      let closed: () => void = () => {}
      const upstreamClosed = new Promise<void>((resolve) => { closed = resolve })
      const slow = await upstream((_req, res) => {
        res.on('close', closed)
        // Headers after the client has gone, then a body nobody reads.
        setTimeout(() => {
          res.writeHead(200, { 'content-type': 'application/octet-stream' })
          res.write(Buffer.alloc(1 << 20))
        }, 300)
      })
      try {
        const poolId = await createPool(t, 'leaving')
        await addMember(t, poolId, await createProvider(t, 'leaving-p', { base_url: slow.url }))
        const req = httpRequest({ host: '127.0.0.1', port, path: '/p/leaving/big', method: 'GET' })
        req.on('error', () => {})
        req.end()
        setTimeout(() => req.destroy(), 100)
        let timer: NodeJS.Timeout | undefined
        const held = new Promise<never>((_resolve, reject) => { timer = setTimeout(() => { reject(new Error("the provider's connection is still held 5 s after the client left")) }, 5000) })
        try {
          await Promise.race([upstreamClosed, held])
        } finally {
          clearTimeout(timer)
        }
      } finally {
        await slow.close()
      }
    })

    it('closes the connection after a 413 (the rest of the body is never read), and counts no request its client left', async () => {
      await poolNamed('limits')
      const tooLarge = await new Promise<{ status: number, connection: string | undefined }>((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port, path: '/p/limits/x', method: 'POST', headers: { 'content-length': String(20 * 1024 * 1024) } }, (res) => {
          res.resume()
          resolve({ status: res.statusCode ?? 0, connection: res.headers.connection })
        })
        req.on('error', reject)
        req.write(Buffer.alloc(1024))
      })
      assert.deepEqual(tooLarge, { status: 413, connection: 'close' })
      // A cached 204 says no length, fresh or stored.
      const empty = await upstream((_req, res) => { res.writeHead(204, { 'cache-control': 'max-age=60' }); res.end() })
      try {
        const poolId = await createPool(t, 'empty', { cache_ttl_seconds: 60 })
        await addMember(t, poolId, await createProvider(t, 'empty-p', { base_url: empty.url }))
        for (const cache of ['MISS', 'HIT']) {
          const answer = await rawGet(port, '/p/empty/none')
          assert.deepEqual([answer.status, answer.headers['x-sourcepool-cache'], answer.headers['content-length']], [204, cache, undefined])
        }
      } finally {
        await empty.close()
      }
    })

    it('rebuilds what a pool does when its settings change: the cache turned on and off under load fails no request', async () => {
      const poolId = await poolNamed('switching')
      const get = async () => await t.request({ method: 'GET', url: '/p/switching/s' })
      const failed: string[] = []
      const state = { running: true }
      let served = 0
      // Four clients asking all along, while the settings change under them.
      const load = Promise.all([1, 2, 3, 4].map(async () => {
        while (state.running) {
          const answer = await get()
          served++
          if (answer.status !== 200) failed.push(JSON.stringify(answer.body))
          await new Promise((resolve) => setTimeout(resolve, 1))
        }
      }))
      for (const ttl of [60, 0, 60, 0]) {
        const changed = await t.request({ method: 'PUT', url: `/api/pools/${poolId}`, payload: { cache_ttl_seconds: ttl } })
        assert.equal(changed.status, 200, JSON.stringify(changed.body))
        // The next answers follow the new setting at once: no cache header without a cache; stored, then served, with one.
        const [a, b] = [await get(), await get()]
        if (ttl === 0) assert.deepEqual([a.headers['x-sourcepool-cache'], b.headers['x-sourcepool-cache']], [undefined, undefined])
        else assert.equal(b.headers['x-sourcepool-cache'], 'HIT')
      }
      state.running = false
      await load
      assert.deepEqual(failed, [])
      assert.ok(served > 8, `served ${served}`)
    })
  })
}
