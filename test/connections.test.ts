import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { after, before, describe, it } from 'node:test'
import { buildTestApp, sqlite } from './helpers.js'
import { freePort, startServer, type ServerProcess } from './server-process.js'

/** A raw TCP connection to the server that collects everything it answers. */
interface Raw { socket: Socket, received: () => string, closed: Promise<number> }

async function rawConnection (url: string): Promise<Raw> {
  const { hostname, port } = new URL(url)
  const socket = connect(Number(port), hostname)
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject))
  let text = ''
  socket.on('data', (chunk) => { text += String(chunk) })
  socket.on('error', () => {})
  const opened = Date.now()
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now() - opened)))
  return { socket, received: () => text, closed }
}

/** Status line and JSON body of the one answer in `text`. */
function answerOf (text: string): { status: number, body: unknown, headers: string } {
  const [head = '', body = ''] = text.split('\r\n\r\n')
  return { status: Number(head.split(' ')[1]), body: body === '' ? undefined : JSON.parse(body), headers: head.toLowerCase() }
}

describe('connections: every request must arrive in time, unknown routes are not read', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sourcepool-connections-'))
  let server: ServerProcess
  before(async () => {
    server = await startServer({ DATABASE_URL: `sqlite:${join(dir, 'pools.db')}`, REQUEST_TIMEOUT_MS: '1000', HEADERS_TIMEOUT_MS: '500' })
  })
  after(async () => {
    await server.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  it('answers an unknown route 404 at once, without waiting for (or reading) its body, and closes the connection', async () => {
    const raw = await rawConnection(server.url)
    raw.socket.write('POST /no-such-route HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"a":1')
    const lived = await raw.closed
    assert.ok(lived < 900, `closed after ${lived} ms`)
    const answer = answerOf(raw.received())
    assert.equal(answer.status, 404)
    assert.deepEqual(answer.body, { detail: 'Not Found' })
    assert.match(answer.headers, /connection: close/)
  })

  it('answers 404, not 422, for malformed JSON sent to an unknown route', async () => {
    const res = await fetch(`${server.url}/no-such-route`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{bad' })
    assert.equal(res.status, 404)
    assert.deepEqual(await res.json(), { detail: 'Not Found' })
  })

  it('closes a request whose body stalls with 408 after REQUEST_TIMEOUT_MS', async () => {
    const raw = await rawConnection(server.url)
    raw.socket.write('POST /api/pools HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"a":1')
    const lived = await raw.closed
    assert.ok(lived >= 900 && lived < 5000, `closed after ${lived} ms`)
    const answer = answerOf(raw.received())
    assert.equal(answer.status, 408)
    assert.deepEqual(answer.body, { detail: 'Request timed out: the request must arrive within 1000 ms (headers within 500 ms)' })
    // The service is still answering.
    assert.equal((await fetch(`${server.url}/healthz`)).status, 200)
  })

  it('closes a connection whose headers stall with 408 after HEADERS_TIMEOUT_MS', async () => {
    const raw = await rawConnection(server.url)
    raw.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ')
    const lived = await raw.closed
    assert.ok(lived >= 400 && lived < 5000, `closed after ${lived} ms`)
    assert.equal(answerOf(raw.received()).status, 408)
  })

  it('answers malformed HTTP with a {"detail"} 400 and closes the connection', async () => {
    const raw = await rawConnection(server.url)
    raw.socket.write('GARBAGE\r\n\r\n')
    await raw.closed
    const answer = answerOf(raw.received())
    assert.equal(answer.status, 400)
    assert.deepEqual(answer.body, { detail: 'Malformed request' })
  })
})

describe('shutdown with requests still arriving', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sourcepool-stalled-shutdown-'))
  after(() => { rmSync(dir, { recursive: true, force: true }) })

  it('SIGTERM does not wait for a request whose body (or headers) never arrives: exit 0 at once', async () => {
    // The request timeout is far longer than the shutdown timeout: only cutting the stalled
    // requests off lets the process exit 0 quickly.
    const server = await startServer({ DATABASE_URL: `sqlite:${join(dir, 'pools.db')}`, REQUEST_TIMEOUT_MS: '60000', SHUTDOWN_TIMEOUT_MS: '8000' })
    const body = await rawConnection(server.url)
    body.socket.write('POST /api/pools HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"a":1')
    const headers = await rawConnection(server.url)
    headers.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n')
    await new Promise((resolve) => setTimeout(resolve, 200))
    const started = Date.now()
    const code = await server.stop()
    const took = Date.now() - started
    assert.equal(code, 0)
    assert.ok(took < 4000, `shutdown took ${took} ms`)
    await Promise.all([body.closed, headers.closed])
  })
})

describe('QUERY without a content type', () => {
  it('answers 404 for a route that has no QUERY and 400 where QUERY is routed, never a 500 or an error log', async () => {
    const levels: number[] = []
    const t = await buildTestApp(sqlite, { logger: { level: 'info', stream: { write: (line: string) => { levels.push((JSON.parse(line) as { level: number }).level) } } } })
    try {
      const unknown = await t.request({ method: 'QUERY', url: '/healthz' })
      assert.equal(unknown.status, 404)
      assert.deepEqual(unknown.body, { detail: 'Not Found' })
      const proxied = await t.request({ method: 'QUERY', url: '/api/pools/1/proxy/x' })
      assert.equal(proxied.status, 400)
      assert.deepEqual(proxied.body, { detail: "Method 'QUERY' must provide a 'Content-Type' header." })
      assert.deepEqual(levels.filter((level) => level >= 50), [])
    } finally {
      await t.close()
    }
  })
})

describe('npm start', () => {
  const root = fileURLToPath(new URL('..', import.meta.url))
  const dir = mkdtempSync(join(tmpdir(), 'sourcepool-npm-start-'))
  after(() => { rmSync(dir, { recursive: true, force: true }) })

  it('shuts the server down when the npm process gets SIGTERM, as a process manager sends it', async () => {
    const port = await freePort()
    const npm = spawn('npm', ['start', '--silent'], {
      cwd: root,
      env: { ...process.env, PORT: String(port), DATABASE_URL: `sqlite:${join(dir, 'pools.db')}`, LOG_LEVEL: 'warn' },
      stdio: 'ignore',
      detached: true
    })
    const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)))
    const url = `http://127.0.0.1:${port}/healthz`
    try {
      // npm start builds first (prestart): from nothing that takes a minute on a busy machine.
      const deadline = Date.now() + 180_000
      while (!(await fetch(url).then((res) => res.ok, () => false))) {
        assert.ok(Date.now() < deadline, 'npm start did not serve /healthz within 180 s')
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      npm.kill('SIGTERM')
      assert.equal(await exited, 0)
      // Nothing listens on the port any more: the server itself got the signal.
      await new Promise((resolve) => setTimeout(resolve, 300))
      assert.equal(await fetch(url).then(() => 'answered', () => 'refused'), 'refused')
    } finally {
      // Whatever failed, npm and its server must not outlive the test (the run would never end).
      try { process.kill(-(npm.pid as number), 'SIGKILL') } catch {}
    }
  })
})
