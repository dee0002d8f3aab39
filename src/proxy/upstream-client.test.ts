/**
 * The upstream client's pools of connections, kept per origin (issue 28: an undici
 * Agent dropped and rebuilt an origin's pool at every refused connection, which
 * made a failing request cost more than a successful one). Kept, a pool must still
 * behave as a fresh one would: attempts to a provider refusing connections each
 * fail as a connection error (never as a closed or destroyed client, which would
 * read as an error of ours), the same origin answers as soon as it listens again,
 * and once the client is closed an attempt is an error of ours, as on a closed agent.
 */
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, it } from 'node:test'
import { classifyAttempt } from './attempt.js'
import type { ProxyRequest } from './forward.js'
import { createUpstreamClient, type SentUpstream } from './upstream-client.js'

const POOL = { forward_client_auth: 0, max_cooldown_seconds: 300 }

function request (): ProxyRequest {
  return { method: 'GET', url: '/api/pools/1/proxy/data', headers: {}, body: undefined, peer: '127.0.0.1', protocol: 'http', requestId: 'r1', log: { info: () => {} } }
}

const member = (baseUrl: string) => ({ base_url: baseUrl, auth_headers: null, timeout_ms: 2_000 })

/** A port nothing listens on now (a server bound to it, then closed). */
async function freePort (): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** Answers every request with 200 and `body`, on `port`. */
async function listen (port: number, body: string): Promise<Server> {
  const server = createServer((_req, res) => { res.end(body) })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  return server
}

async function stop (server: Server): Promise<void> {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
}

/** What an attempt came to, as the proxy reads it: a status, or a failure's reason. */
async function outcome (sent: SentUpstream): Promise<string> {
  if ('response' in sent) return `${sent.response.statusCode} ${await sent.response.body.text()}`
  const result = classifyAttempt(sent, POOL, new Date())
  return result.kind === 'failure' ? result.reason : result.kind
}

describe('the upstream client', () => {
  it('answers each attempt to a provider refusing connections as a connection error, one after another and at once', async () => {
    const client = createUpstreamClient()
    try {
      const url = `http://127.0.0.1:${await freePort()}`
      for (let i = 0; i < 5; i++) assert.equal(await outcome(await client.send(request(), '/data', POOL, member(url))), 'connect_error')
      const together = await Promise.all(Array.from({ length: 20 }, async () => await outcome(await client.send(request(), '/data', POOL, member(url)))))
      assert.deepEqual(together, Array.from({ length: 20 }, () => 'connect_error'))
    } finally {
      await client.close()
    }
  })

  it('reaches a provider that listens again after refusing, on the pool it kept for that origin', async () => {
    const client = createUpstreamClient()
    const port = await freePort()
    const url = `http://127.0.0.1:${port}`
    try {
      assert.equal(await outcome(await client.send(request(), '/data', POOL, member(url))), 'connect_error')
      const server = await listen(port, 'back')
      try {
        const answers = await Promise.all(Array.from({ length: 4 }, async () => await outcome(await client.send(request(), '/data', POOL, member(url)))))
        assert.deepEqual(answers, ['200 back', '200 back', '200 back', '200 back'])
      } finally {
        await stop(server)
      }
      assert.equal(await outcome(await client.send(request(), '/data', POOL, member(url))), 'connect_error')
    } finally {
      await client.close()
    }
  })

  it('once closed, answers an attempt as an error of ours (no provider charged), for a known origin and a new one', async () => {
    const client = createUpstreamClient()
    const server = await listen(0, 'ok')
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    try {
      assert.equal(await outcome(await client.send(request(), '/data', POOL, member(url))), '200 ok')
      await client.close()
      assert.equal(await outcome(await client.send(request(), '/data', POOL, member(url))), 'ours')
      assert.equal(await outcome(await client.send(request(), '/data', POOL, member(`http://127.0.0.1:${await freePort()}`))), 'ours')
    } finally {
      await stop(server)
    }
  })
})
