import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import Fastify from 'fastify'
import WebSocket from 'ws'
import { buildTestApp, sqlite, type TestApp } from '../../test/helpers.js'
import { CATALOGUE, isMounted, routerMethod, type CatalogueEntry } from './catalogue.js'
import { buildStatusReport } from './status-report.js'
import { v1Routes } from './v1.routes.js'

const openapiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}')
const concrete = (path: string) => path.replace(/:(\w+)/g, 'x1')

describe('/api/v1 family', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp(sqlite) })
  after(async () => { await t.close() })

  it('holds the spec\'s 16 unregistered routes', () => {
    assert.equal(CATALOGUE.filter((e) => e.status === 'unregistered').length, 16)
  })

  it('answers every unregistered route with 404 {"detail":"Not Found"} for its method', async () => {
    for (const entry of CATALOGUE.filter((e) => !isMounted(e))) {
      const method = routerMethod(entry)
      const res = await t.request({ method, url: concrete(entry.path), payload: method === 'POST' ? {} : undefined })
      assert.equal(res.status, 404, `${entry.method} ${entry.path}`)
      assert.deepEqual(res.body, { detail: 'Not Found' })
    }
  })

  it('lists in /openapi.json exactly the registered and partial routes of the family', async () => {
    const doc = (await t.request({ method: 'GET', url: '/openapi.json' })).body
    const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
      .filter(([path]) => path.startsWith('/api/v1') || path === '/graphql')
      .flatMap(([path, methods]) => Object.keys(methods).filter((m) => m !== 'head').map((m) => `${m.toUpperCase()} ${path}`))
      .sort()
    const expected = CATALOGUE.filter(isMounted).map((e) => `${routerMethod(e)} ${openapiPath(e.path)}`).sort()
    assert.deepEqual(documented, expected)
  })

  it('POST /api/v1/investigations/start answers 503 with Retry-After', async () => {
    const res = await t.request({ method: 'POST', url: '/api/v1/investigations/start', payload: { query: 'x' } })
    assert.equal(res.status, 503)
    assert.equal(res.headers['retry-after'], '60')
    assert.deepEqual(res.body, { detail: 'Investigation service is temporarily unavailable' })
  })

  it('POST /graphql answers 503 in GraphQL\'s error shape', async () => {
    const res = await t.request({ method: 'POST', url: '/graphql', payload: { query: '{ pools { id } }' } })
    assert.equal(res.status, 503)
    assert.deepEqual(res.body, { errors: [{ message: 'GraphQL schema is not defined' }] })
  })

  it('POST /api/v1/agents/:name answers 501 for the three stubs and 404 for any other name', async () => {
    for (const name of ['dandara', 'lampiao', 'niemeyer']) {
      const res = await t.request({ method: 'POST', url: `/api/v1/agents/${name}`, payload: {} })
      assert.equal(res.status, 501)
      assert.deepEqual(res.body, { detail: `Agent '${name}' is not implemented` })
    }
    const other = await t.request({ method: 'POST', url: '/api/v1/agents/zumbi', payload: {} })
    assert.equal(other.status, 404)
    assert.deepEqual(other.body, { detail: "Agent 'zumbi' not found" })
  })

  it('GET /api/v1/ws/chat without an upgrade answers 426', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v1/ws/chat' })
    assert.equal(res.status, 426)
    assert.equal(res.headers.upgrade, 'websocket')
    assert.deepEqual(res.body, { detail: 'This endpoint speaks WebSocket only' })
  })

  it('the chat WebSocket answers every message with an error and stays open', async () => {
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 })
    const socket = new WebSocket(`${address.replace('http', 'ws')}/api/v1/ws/chat`)
    const replies: unknown[] = []
    await new Promise<void>((resolve, reject) => { socket.once('open', () => resolve()); socket.once('error', reject) })
    const next = () => new Promise<void>((resolve) => socket.once('message', (data) => { replies.push(JSON.parse(String(data))); resolve() }))
    for (const text of ['hello', '{"type":"message","content":"who pays?"}']) {
      const received = next()
      socket.send(text)
      await received
    }
    const expected = { type: 'error', detail: 'Chat message processing is not available' }
    assert.deepEqual(replies, [expected, expected])
    assert.equal(socket.readyState, WebSocket.OPEN)
    socket.close()
    await new Promise((resolve) => socket.once('close', resolve))
  })

  it('GET /api/v1/status/endpoints reports the catalogue\'s counts and agrees with the live router', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v1/status/endpoints' })
    assert.equal(res.status, 200)
    assert.equal(res.body.total, CATALOGUE.length)
    for (const status of ['registered', 'partial', 'unregistered'] as const) {
      const n = CATALOGUE.filter((e) => e.status === status).length
      assert.equal(res.body.by_status[status].count, n)
      assert.equal(res.body.by_status[status].share, Math.round((n / CATALOGUE.length) * 1000) / 1000)
    }
    assert.equal(res.body.routes.length, CATALOGUE.length)
    for (const [i, entry] of CATALOGUE.entries()) {
      const route = res.body.routes[i]
      assert.deepEqual(route, { method: entry.method, path: openapiPath(entry.path), status: entry.status, purpose: entry.purpose, mounted: isMounted(entry) })
      assert.equal(t.app.hasRoute({ method: routerMethod(entry), url: entry.path }), isMounted(entry), `${entry.method} ${entry.path}`)
    }
    assert.equal(res.body.consistent, true)
  })
})

describe('catalogue and handlers cannot disagree', () => {
  async function mount (catalogue: readonly CatalogueEntry[]) {
    const app = Fastify({ logger: false })
    try {
      await app.register(v1Routes, { catalogue })
      await app.ready()
    } finally {
      await app.close()
    }
  }

  it('mounts the real catalogue', async () => {
    await mount(CATALOGUE)
  })

  it('refuses a registered entry that has no handler', async () => {
    const extra: CatalogueEntry = { method: 'GET', path: '/api/v1/new', purpose: 'x', status: 'registered' }
    await assert.rejects(mount([...CATALOGUE, extra]), /'GET \/api\/v1\/new' is registered but has no handler/)
  })

  it('refuses a handler whose entry is missing or marked unregistered', async () => {
    const withoutGraphql = CATALOGUE.filter((e) => e.path !== '/graphql')
    await assert.rejects(mount(withoutGraphql), /'POST \/graphql' has no registered or partial catalogue entry/)
    const demoted = CATALOGUE.map((e) => e.path === '/graphql' ? { ...e, status: 'unregistered' as const } : e)
    await assert.rejects(mount(demoted), /'POST \/graphql' has no registered or partial catalogue entry/)
  })

  it('reports a route that is not mounted as it is, and the report as inconsistent', () => {
    const report = buildStatusReport(CATALOGUE, (method, url) => !(method === 'POST' && url === '/graphql'))
    const graphql = report.routes.find((r) => r.path === '/graphql')
    assert.equal(graphql?.mounted, false)
    assert.equal(report.consistent, false)
  })
})
