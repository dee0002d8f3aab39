/**
 * The serving port (src/serving-port.ts) in process, over real HTTP: bound before the
 * service is built, it holds requests until told to serve, also once the service is
 * built and ready (a worker waiting for the others), then the service answers them
 * (with WORKERS, on a connection closed after the answer); WebSocket upgrades get 503
 * Starting at once; a request that waited longer than its bound gets 503 Starting.
 */
import assert from 'node:assert/strict'
import { request } from 'node:http'
import { describe, it } from 'node:test'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { servingPort } from '../src/serving-port.js'
import { describeOn, dialects, sleep } from './helpers.js'

/** The status and body a WebSocket upgrade of `url` is answered with: 101 when it is upgraded. */
async function upgradeStatus (url: string): Promise<{ status: number, body: string }> {
  return await new Promise((resolve, reject) => {
    const req = request(url, { headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' } })
    req.on('upgrade', (_res, socket) => { socket.destroy(); resolve({ status: 101, body: '' }) })
    req.on('response', (res) => {
      let body = ''
      res.on('data', (chunk) => { body += String(chunk) })
      res.on('end', () => { resolve({ status: res.statusCode ?? 0, body }) })
    })
    req.on('error', reject)
    req.end()
  })
}

const get = async (url: string) => {
  const res = await fetch(url)
  return { status: res.status, body: await res.text(), retryAfter: res.headers.get('retry-after'), connection: res.headers.get('connection') }
}

const STARTING = '{"detail":"Starting"}'

for (const dialect of dialects) {
  describeOn(dialect, 'the serving port', () => {
    for (const dropIdle of [false, true]) {
      it(`holds requests until told to serve${dropIdle ? ' (WORKERS: then closes their connections)' : ''}, even with the service built and ready, and refuses upgrades until then`, async () => {
        const database = await dialect.create()
        const config = loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: 'silent', HOST: '127.0.0.1', PORT: '0' })
        const port = servingPort(config)
        await port.listen()
        const url = port.url()
        const app = await buildApp(config, { logger: false, healthCheckTimer: false, serverFactory: port.serverFactory })
        try {
          await app.ready()
          let answered = false
          const held = get(`${url}/healthz`).finally(() => { answered = true })
          while (port.waiting() === 0) await sleep(5)
          assert.deepEqual(await upgradeStatus(`${url}/api/v1/ws/chat`), { status: 503, body: STARTING })
          assert.equal(answered, false, 'not answered before the port serves')

          port.serve({ dropIdle })
          assert.deepEqual(await held, { status: 200, body: '{"status":"ok"}', retryAfter: null, connection: dropIdle ? 'close' : 'keep-alive' })
          assert.equal((await get(`${url}/healthz`)).connection, 'keep-alive', 'a connection made once it serves is kept')
          assert.equal((await upgradeStatus(`${url}/api/v1/ws/chat`)).status, 101)
        } finally {
          await app.close()
          await database.drop()
        }
      })
    }
  })
}

describe('the serving port while the service starts', () => {
  it('answers a request that waited longer than its bound 503 Starting, with Retry-After and Connection: close', async () => {
    const port = servingPort(loadConfig({ DATABASE_URL: 'sqlite::memory:', HOST: '127.0.0.1', PORT: '0' }), { holdMs: 50 })
    await port.listen()
    const server = port.serverFactory(() => {}, {})
    try {
      const res = await fetch(`${port.url()}/healthz`, { headers: { 'x-request-id': 'waited-too-long' } })
      assert.deepEqual([res.status, await res.text(), res.headers.get('retry-after'), res.headers.get('connection'), res.headers.get('x-request-id')],
        [503, STARTING, '1', 'close', 'waited-too-long'])
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })
})
