/**
 * The forwarding engine against providers written byte by byte (a node:net server,
 * no HTTP library on that side): an unsolicited `100 Continue` before the final
 * answer, as some servers send to every request with a body, is skipped like any
 * interim answer (http/interim-answers.ts) — whatever the method, split across TCP
 * segments, with headers, followed by a 103, on a connection reused — and the
 * provider is not charged a failure. Proves too that undici alone still refuses
 * it, so these tests would fail without the hook.
 */
import assert from 'node:assert/strict'
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { Agent } from 'undici'
import { addMember, createPool, createProvider } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, sleep, type TestApp } from '../../test/helpers.js'
import { continueSkippingConnector } from '../http/interim-answers.js'

/** One request as the raw upstream read it. */
interface RawRequest { method: string, path: string, headers: string, body: string, connection: number }

/** What the raw upstream sends for a request: each string written as one TCP write, each number a pause (ms) between writes. */
type Script = (request: RawRequest) => Array<string | number>

/** A provider speaking HTTP/1.1 by hand: reads requests one after another on each connection and answers as `script` says. */
interface RawUpstream { url: string, seen: RawRequest[], connections: () => number, close: () => Promise<void> }

async function rawUpstream (script: Script): Promise<RawUpstream> {
  const seen: RawRequest[] = []
  const sockets = new Set<Socket>()
  let connections = 0
  const server: Server = createServer((socket) => {
    const connection = ++connections
    sockets.add(socket)
    socket.setNoDelay(true)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => {})
    let buffered = Buffer.alloc(0)
    let answering = Promise.resolve()
    socket.on('data', (data: Buffer) => {
      buffered = Buffer.concat([buffered, data])
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n')
        if (end === -1) return
        const head = buffered.subarray(0, end).toString('latin1')
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0)
        if (buffered.length < end + 4 + length) return
        const [method = '', path = ''] = head.split('\r\n')[0]?.split(' ') ?? []
        const request = { method, path, headers: head, body: buffered.subarray(end + 4, end + 4 + length).toString(), connection }
        buffered = buffered.subarray(end + 4 + length)
        seen.push(request)
        // Answers go out in the order their requests came, each write after the one before.
        answering = answering.then(async () => {
          for (const step of script(request)) {
            if (typeof step === 'number') await new Promise((resolve) => setTimeout(resolve, step))
            else if (!socket.destroyed) socket.write(step)
          }
        })
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    connections: () => connections,
    close: async () => {
      for (const socket of sockets) socket.destroy()
      await new Promise((resolve) => server.close(resolve))
    }
  }
}

const CONTINUE = 'HTTP/1.1 100 Continue\r\n\r\n'

/**
 * Time for undici to take a connection back after an answer (it waits a turn of
 * the event loop): a request sent sooner goes on a second connection.
 */
const IDLE = 20

/** A final answer with a Content-Length body. */
const ok = (body: string, status = '200 OK', extra = '') => `HTTP/1.1 ${status}\r\ncontent-type: text/plain\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`

describe('undici and an unsolicited 100 Continue', () => {
  let up: RawUpstream
  beforeEach(async () => { up = await rawUpstream(() => [CONTINUE + ok('fine')]) })
  afterEach(async () => { await up.close() })

  it('undici alone destroys the connection (when this fails, undici skips it itself and the hook can go)', async () => {
    const agent = new Agent()
    try {
      await assert.rejects(agent.request({ origin: up.url, path: '/', method: 'GET' }), { code: 'UND_ERR_SOCKET', message: 'bad response' })
    } finally {
      await agent.close()
    }
  })

  it('an agent on continueSkippingConnector gets the final answer, on one connection kept alive', async () => {
    const agent = new Agent({ connect: continueSkippingConnector() })
    try {
      for (let i = 0; i < 3; i++) {
        const response = await agent.request({ origin: up.url, path: `/${i}`, method: 'GET' })
        assert.equal(response.statusCode, 200)
        assert.equal(await response.body.text(), 'fine')
        await sleep(IDLE)
      }
      assert.equal(up.connections(), 1)
    } finally {
      await agent.close()
    }
  })
})

for (const dialect of dialects) {
  describeOn(dialect, 'the proxy and interim answers', () => {
    let t: TestApp
    const upstreams: RawUpstream[] = []
    const start = async (script: Script) => {
      const u = await rawUpstream(script)
      upstreams.push(u)
      return u
    }
    /** A pool whose one member is `url`. */
    const pool = async (name: string, url: string, providerExtra: Record<string, unknown> = {}) => {
      const poolId = await createPool(t, name)
      await addMember(t, poolId, await createProvider(t, name, { base_url: url, ...providerExtra }))
      return poolId
    }
    /** The pool's one member: health and counts. */
    const member = async (poolId: number) => {
      const [m] = (await t.request({ method: 'GET', url: `/api/pools/${poolId}` })).body.members
      return [m.health, m.success_count, m.failure_count, m.consecutive_failures]
    }
    beforeEach(async () => { t = await buildTestApp(dialect) })
    afterEach(async () => {
      await t.close()
      for (const u of upstreams.splice(0)) await u.close()
    })

    it('skips a 100 before the final answer, for GET and for POST with a body (sent once), on a connection reused', async () => {
      const up = await start((request) => [CONTINUE, ok(`${request.method} ${request.path} ${request.body}`, '201 Created', 'x-final: yes\r\n')])
      const poolId = await pool('continue', up.url)
      const get = await t.app.inject({ method: 'GET', url: `/api/pools/${poolId}/proxy/a?x=1` })
      assert.equal(get.statusCode, 201, get.body)
      assert.equal(get.body, 'GET /a?x=1 ')
      assert.equal(get.headers['x-final'], 'yes')
      assert.equal(get.headers['x-sourcepool-attempts'], '1')
      await sleep(IDLE)
      const post = await t.app.inject({ method: 'POST', url: `/api/pools/${poolId}/proxy/b`, headers: { 'content-type': 'text/plain' }, payload: 'the body' })
      assert.equal(post.statusCode, 201, post.body)
      assert.equal(post.body, 'POST /b the body')
      // Each request went up once (nothing re-sent), both on the one connection.
      assert.deepEqual(up.seen.map((r) => [r.method, r.path, r.body, r.connection]), [['GET', '/a?x=1', '', 1], ['POST', '/b', 'the body', 1]])
      assert.equal(up.connections(), 1)
      assert.deepEqual(await member(poolId), ['healthy', 2, 0, 0])
      assert.equal((await t.request({ method: 'GET', url: `/api/pools/${poolId}/history` })).body.total, 0)
    })

    it('skips a 100 whose status line, headers and the answer after it come split across TCP writes', async () => {
      const up = await start(() => ['HTTP/1.1 10', 30, '0 Cont', 30, 'inue\r\nx-interim: 1\r', 30, '\n\r\nHTTP/1.', 30, '1 200 OK\r\ncontent-length: 5\r\n\r\nhel', 30, 'lo'])
      const poolId = await pool('split', up.url)
      for (let i = 0; i < 2; i++) {
        const res = await t.app.inject({ method: 'GET', url: `/api/pools/${poolId}/proxy/split` })
        assert.equal(res.statusCode, 200, res.body)
        assert.equal(res.body, 'hello')
        // The interim answer's headers are not the final answer's.
        assert.equal(res.headers['x-interim'], undefined)
        await sleep(IDLE)
      }
      assert.equal(up.connections(), 1)
      assert.deepEqual(await member(poolId), ['healthy', 2, 0, 0])
    })

    it('skips a 100 with headers, then a 103, then answers; the interims sent in one write with the answer', async () => {
      const interims = 'HTTP/1.1 100 Continue\r\nx-interim: a\r\ncontent-length: 0\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </s.css>; rel=preload\r\n\r\n'
      const up = await start(() => [interims + ok('{"n":1}', '200 OK', 'x-final: 1\r\n')])
      const poolId = await pool('interims', up.url)
      const res = await t.app.inject({ method: 'POST', url: `/api/pools/${poolId}/proxy/p`, headers: { 'content-type': 'application/json' }, payload: '{"q":2}' })
      assert.equal(res.statusCode, 200, res.body)
      assert.equal(res.body, '{"n":1}')
      assert.deepEqual([res.headers['x-final'], res.headers['x-interim'], res.headers.link], ['1', undefined, undefined])
      assert.deepEqual(up.seen.map((r) => r.body), ['{"q":2}'])
      assert.deepEqual(await member(poolId), ['healthy', 1, 0, 0])
    })

    it('passes a body that carries the bytes of a 100 as it is (Content-Length and chunked), and answers HEAD after a 100', async () => {
      const inside = `${CONTINUE}${CONTINUE}not an interim answer`
      const chunked = `HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n${CONTINUE.length.toString(16)}\r\n${CONTINUE}\r\n3\r\nend\r\n0\r\n\r\n`
      const up = await start((request) =>
        request.method === 'HEAD'
          ? [CONTINUE, 'HTTP/1.1 200 OK\r\ncontent-length: 12\r\netag: "h"\r\n\r\n']
          : request.path === '/chunked' ? [CONTINUE, chunked] : [CONTINUE + ok(inside)])
      const poolId = await pool('inside', up.url)
      const plain = await t.app.inject({ method: 'GET', url: `/api/pools/${poolId}/proxy/plain` })
      assert.deepEqual([plain.statusCode, plain.body], [200, inside])
      const chunks = await t.app.inject({ method: 'GET', url: `/api/pools/${poolId}/proxy/chunked` })
      assert.deepEqual([chunks.statusCode, chunks.body], [200, `${CONTINUE}end`])
      const head = await t.app.inject({ method: 'HEAD', url: `/api/pools/${poolId}/proxy/head` })
      assert.deepEqual([head.statusCode, head.body, head.headers.etag, head.headers['content-length']], [200, '', '"h"', '12'])
      const again = await t.app.inject({ method: 'GET', url: `/api/pools/${poolId}/proxy/plain` })
      assert.deepEqual([again.statusCode, again.body], [200, inside])
      assert.deepEqual(up.seen.map((r) => r.method), ['GET', 'GET', 'HEAD', 'GET'])
      assert.deepEqual(await member(poolId), ['healthy', 4, 0, 0])
    })

    it('does not take a 100 for the start of the answer: a provider that sends only 100s still times out', async () => {
      const up = await start(() => [CONTINUE, 100, CONTINUE, 100, CONTINUE, 100, CONTINUE, 100, CONTINUE])
      const poolId = await pool('only-interims', up.url, { timeout_ms: 250 })
      const started = performance.now()
      const res = await t.request({ method: 'GET', url: `/api/pools/${poolId}/proxy/x` })
      const took = performance.now() - started
      assert.equal(res.status, 502)
      assert.equal(res.body.attempts[0].error, 'timeout')
      assert.ok(took >= 200 && took < 2000, `took ${took} ms`)
    })
  })
}
