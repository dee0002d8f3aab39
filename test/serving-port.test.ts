/**
 * The serving port (src/serving-port.ts) in process, on both databases, over real
 * HTTP: bound before the service is built, it answers requests and WebSocket upgrades
 * 503 Starting, also once the service is built and ready (a worker waiting for the
 * others), and hands both to the service once told to serve.
 */
import assert from 'node:assert/strict'
import { request } from 'node:http'
import { it } from 'node:test'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { servingPort } from '../src/serving-port.js'
import { describeOn, dialects } from './helpers.js'

/** The status a WebSocket upgrade of `url` is answered with: 101 when it is upgraded. */
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
  return { status: res.status, body: await res.text(), retryAfter: res.headers.get('retry-after') }
}

const STARTING = { status: 503, body: '{"detail":"Starting"}', retryAfter: '1' }

for (const dialect of dialects) {
  describeOn(dialect, 'the serving port', () => {
    it('answers requests and upgrades 503 Starting until told to serve, even with the service built and ready', async () => {
      const database = await dialect.create()
      const config = loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: 'silent', HOST: '127.0.0.1', PORT: '0' })
      const port = servingPort(config)
      await port.listen()
      const url = port.url()
      const app = await buildApp(config, { logger: false, healthCheckTimer: false, serverFactory: port.serverFactory })
      try {
        await app.ready()
        assert.deepEqual(await get(`${url}/healthz`), STARTING)
        const upgrade = await upgradeStatus(`${url}/api/v1/ws/chat`)
        assert.deepEqual(upgrade, { status: 503, body: '{"detail":"Starting"}' })

        port.serve()
        assert.deepEqual(await get(`${url}/healthz`), { status: 200, body: '{"status":"ok"}', retryAfter: null })
        assert.equal((await upgradeStatus(`${url}/api/v1/ws/chat`)).status, 101)
      } finally {
        await app.close()
        await database.drop()
      }
    })
  })
}
