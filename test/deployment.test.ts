/**
 * Behind a front door. TRUST_PROXY through app.inject on both databases: off, a
 * client's X-Forwarded-For changes nothing (every client behind a proxy is the
 * proxy); on, the failed-authentication limit, the audit trail and the
 * X-Forwarded-For sent upstream by the proxy all see the real client. Then NGINX
 * for real, running deploy/nginx-sourcepool.conf in front of two real instances
 * on one PostgreSQL database, and deploy/nginx-sourcepool-data-plane.conf in front
 * of the same instances' PROXY_PORT. And the deployment files checked by their linters:
 * the Dockerfile (dockerfile-utils), compose.yaml (dclint, the compose-spec schema
 * and its rules), the systemd unit (systemd-analyze verify).
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { request as httpRequest, type IncomingMessage } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, afterEach, before, beforeEach, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { validate } from 'dockerfile-utils'
import { parse } from 'yaml'
import { recordAudit, SYSTEM_ACTOR } from '../src/audit/audit.js'
import { buildTestApp, createPostgresSchema, describeOn, dialects, postgres, sleep, type TestApp, type TestDatabase } from './helpers.js'
import { nginxSkip, startNginx, type Nginx } from './nginx.js'
import { freePort, startServer, type ServerProcess } from './server-process.js'
import { openStream } from './event-stream.js'
import { json, upstream, type Upstream } from './upstreams.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8')

const ADMIN = 'ops-admin-secret-0001'
const READER = 'dash-read-secret-0002'
const TOKENS = `ops:admin:${ADMIN},dash:read:${READER}`
const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` })

/** The front door's address, and clients behind it (documentation ranges). */
const PROXY = '10.0.0.1'
const CLIENT_A = '198.51.100.1'
const CLIENT_B = '198.51.100.2'
const STRANGER = '203.0.113.7'

for (const dialect of dialects) {
  describeOn(dialect, 'TRUST_PROXY through app.inject', () => {
    let t: TestApp
    const upstreams: Upstream[] = []
    /** GET /api/session from `remoteAddress`, with `secret` and the X-Forwarded-For `forwarded`. */
    const session = async (remoteAddress: string, secret: string, forwarded?: string) =>
      (await t.app.inject({ url: '/api/session', remoteAddress, headers: { ...bearer(secret), ...(forwarded === undefined ? {} : { 'x-forwarded-for': forwarded }) } })).statusCode
    /** Creates a pool as the admin from `remoteAddress` (with `forwarded`), and returns its audit record's client_address. */
    const auditedAddress = async (name: string, remoteAddress: string, forwarded?: string) => {
      const created = await t.app.inject({
        method: 'POST',
        url: '/api/pools',
        remoteAddress,
        payload: { name, category: 'rpc' },
        headers: { ...bearer(ADMIN), ...(forwarded === undefined ? {} : { 'x-forwarded-for': forwarded }) }
      })
      assert.equal(created.statusCode, 200, created.body)
      const id = (created.json() as { pool_id: number }).pool_id
      const audit = await t.request({ url: `/api/audit?target=pool:${id}`, headers: bearer(ADMIN) })
      assert.equal(audit.status, 200)
      assert.equal(audit.body.records.length, 1)
      assert.equal(audit.body.records[0].action, 'pool.create')
      return audit.body.records[0].client_address
    }
    /** Proxies one GET from `remoteAddress` with `headers`; returns the headers the upstream saw. */
    const proxied = async (remoteAddress: string, headers: Record<string, string>) => {
      const up = await upstream(json(200, { ok: true }))
      upstreams.push(up)
      const pool = await t.request({ method: 'POST', url: '/api/pools', headers: bearer(ADMIN), payload: { name: `proxied-${upstreams.length}`, category: 'rpc' } })
      const provider = await t.request({ method: 'POST', url: '/api/providers', headers: bearer(ADMIN), payload: { name: `portal-${upstreams.length}`, base_url: up.url } })
      const poolId = pool.body.pool_id
      const member = await t.request({ method: 'POST', url: `/api/pools/${poolId}/members`, headers: bearer(ADMIN), payload: { provider_id: provider.body.provider_id } })
      assert.deepEqual([pool.status, provider.status, member.status], [200, 200, 200])
      const res = await t.app.inject({ url: `/api/pools/${poolId}/proxy/x`, remoteAddress, headers: { ...bearer(ADMIN), ...headers } })
      assert.equal(res.statusCode, 200, res.body)
      assert.equal(up.seen.length, 1)
      return up.seen[0]?.headers ?? {}
    }
    afterEach(async () => {
      await t.close()
      for (const up of upstreams.splice(0)) await up.close()
    })

    describe('off (the default)', () => {
      beforeEach(async () => { t = await buildTestApp(dialect, {}, { AUTH_TOKENS: TOKENS, AUTH_FAILURE_LIMIT: '3' }) })

      it('counts failed authentications by the connecting address, whatever X-Forwarded-For says', async () => {
        for (let i = 0; i < 3; i++) assert.equal(await session(PROXY, 'wrong-secret-000000', CLIENT_A), 401)
        // Another client behind the same proxy is the proxy: locked out too.
        assert.equal(await session(PROXY, READER, CLIENT_B), 429)
        assert.equal(await session('10.0.0.2', READER), 200)
        // A client cannot lock another out by naming it in the header.
        for (let i = 0; i < 3; i++) assert.equal(await session(STRANGER, 'wrong-secret-000000', CLIENT_B), 401)
        assert.equal(await session(STRANGER, READER), 429)
        assert.equal(await session(CLIENT_B, READER), 200)
      })

      it('records the connecting address in the audit trail, not the header; none for a change made outside a request', async () => {
        assert.equal(await auditedAddress('direct', STRANGER), STRANGER)
        assert.equal(await auditedAddress('claimed', STRANGER, CLIENT_A), STRANGER)
        await t.database.transact((db) => recordAudit(db, SYSTEM_ACTOR, { action: 'pool.create', target: 'pool:99', changes: {}, at: new Date() }))
        const audit = await t.request({ url: '/api/audit?target=pool:99', headers: bearer(ADMIN) })
        assert.deepEqual(audit.body.records.map((record: any) => [record.actor, record.client_address]), [['system', null]])
      })

      it('sends upstream the X-Forwarded-For received plus the connecting address, and its own scheme', async () => {
        const seen = await proxied(PROXY, { 'x-forwarded-for': CLIENT_A, 'x-forwarded-proto': 'https' })
        assert.equal(seen['x-forwarded-for'], `${CLIENT_A}, ${PROXY}`)
        assert.equal(seen['x-forwarded-proto'], 'http')
      })
    })

    describe(`on: TRUST_PROXY=${PROXY}`, () => {
      beforeEach(async () => { t = await buildTestApp(dialect, {}, { AUTH_TOKENS: TOKENS, AUTH_FAILURE_LIMIT: '3', TRUST_PROXY: PROXY }) })

      it('counts failed authentications per real client: one locked out, the next behind the same proxy is not', async () => {
        for (let i = 0; i < 3; i++) assert.equal(await session(PROXY, 'wrong-secret-000000', CLIENT_A), 401)
        assert.equal(await session(PROXY, READER, CLIENT_A), 429)
        assert.equal(await session(PROXY, READER, CLIENT_B), 200)
        // The proxy appends the address it saw: naming B first does not make A into B.
        assert.equal(await session(PROXY, READER, `${CLIENT_B}, ${CLIENT_A}`), 429)
        // A peer that is not the proxy is not believed.
        for (let i = 0; i < 3; i++) assert.equal(await session(STRANGER, 'wrong-secret-000000', CLIENT_B), 401)
        assert.equal(await session(PROXY, READER, CLIENT_B), 200)
        assert.equal(await session(STRANGER, READER), 429)
      })

      it('records the real client in the audit trail; an untrusted peer is recorded as itself', async () => {
        assert.equal(await auditedAddress('through', PROXY, CLIENT_A), CLIENT_A)
        assert.equal(await auditedAddress('spoofed', PROXY, `${STRANGER}, ${CLIENT_B}`), CLIENT_B)
        assert.equal(await auditedAddress('untrusted', STRANGER, CLIENT_A), STRANGER)
        assert.equal(await auditedAddress('proxy itself', PROXY), PROXY)
      })

      it('sends upstream the chain the front door sent plus the front door, and the scheme it reported', async () => {
        const seen = await proxied(PROXY, { 'x-forwarded-for': CLIENT_A, 'x-forwarded-proto': 'https' })
        assert.equal(seen['x-forwarded-for'], `${CLIENT_A}, ${PROXY}`)
        assert.equal(seen['x-forwarded-proto'], 'https')
      })
    })

    it('TRUST_PROXY=1 believes one hop, from any peer; true believes every hop', async () => {
      t = await buildTestApp(dialect, {}, { AUTH_TOKENS: TOKENS, TRUST_PROXY: '1' })
      assert.equal(await auditedAddress('one hop', STRANGER, `${CLIENT_B}, ${CLIENT_A}`), CLIENT_A)
      await t.close()
      t = await buildTestApp(dialect, {}, { AUTH_TOKENS: TOKENS, TRUST_PROXY: 'true' })
      // The left-most address, whoever wrote it: why docs/deployment.md prefers addresses.
      assert.equal(await auditedAddress('every hop', STRANGER, `${CLIENT_B}, ${CLIENT_A}`), CLIENT_B)
    })
  })
}

/** What a request through real HTTP got back. */
interface Answer { status: number, headers: IncomingMessage['headers'], body: any }

/** A request to `url` sent from the local address `from` (a loopback address: 127.0.0.x). */
async function call (from: string, method: string, url: string, headers: Record<string, string> = {}, body?: unknown): Promise<Answer> {
  const payload = body === undefined ? undefined : JSON.stringify(body)
  return await new Promise((resolve, reject) => {
    const req = httpRequest(url, {
      method,
      localAddress: from,
      headers: { ...headers, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) }
    }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => { text += chunk })
      res.on('end', () => { resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text === '' ? undefined : JSON.parse(text) }) })
    })
    req.on('error', reject)
    req.end(payload)
  })
}

/**
 * An NGINX example of deploy/ (`file`) as it is, but for where it listens and the
 * two instances it balances (`sourcepool-1:<instancePort>` and `sourcepool-2:…`
 * there); each line replaced must be there exactly once, so a change to the
 * example cannot leave this test running something else.
 */
function frontDoorConfig (port: number, instances: [string, string], file = 'deploy/nginx-sourcepool.conf', instancePort = 8000): string {
  let text = read(file)
  const replace = (pattern: RegExp, by: string) => {
    assert.equal(text.match(new RegExp(pattern, 'gm'))?.length, 1, `${file}: ${pattern} once`)
    text = text.replace(new RegExp(pattern, 'm'), by)
  }
  replace(/^(\s*)listen 80;$/, `$1listen 127.0.0.1:${port};`)
  replace(new RegExp(`^(\\s*)server sourcepool-1:${instancePort}( .*)?;$`), `$1server ${instances[0]}$2;`)
  replace(new RegExp(`^(\\s*)server sourcepool-2:${instancePort}( .*)?;$`), `$1server ${instances[1]}$2;`)
  return text
}

/** deploy/nginx-sourcepool-data-plane.conf's instances: their PROXY_PORT. */
const DATA_PLANE_PORT = 8100

/** The loopback addresses test clients connect from; NGINX connects to the instances from 127.0.0.1. */
const NGINX_ADDRESS = '127.0.0.1'
const CLIENT = '127.0.0.2'

const FRONT_DOOR = 'behind NGINX: deploy/nginx-sourcepool.conf (and its data-plane variant) in front of two instances on one PostgreSQL database'
const frontDoorSkip = nginxSkip() || (postgres.skip === undefined ? false : `${postgres.skip} (two instances need PostgreSQL)`)
function frontDoorSuite (): void {
  let dir: string
  let database: TestDatabase | undefined
  const servers: ServerProcess[] = []
  let nginx: Nginx | undefined
  let front: string
  let instances: [string, string]
  // deploy/nginx-sourcepool-data-plane.conf, in front of the instances' PROXY_PORT.
  let dataPlaneNginx: Nginx | undefined
  let dataPlaneFront: string
  let dataPlanes: [string, string]

  /** The upstream (host:port) NGINX (`which`: its directory) chose for each request whose access log line matches `request`, in order. */
  const upstreamsOf = (request: RegExp, which = 'nginx'): string[] => readFileSync(join(dir, which, 'logs', 'access.log'), 'utf8')
    .split('\n').filter((line) => request.test(line)).map((line) => line.split(' ')[0] ?? '')
  /** The instances of the first `count` requests matching `request`: NGINX logs a request after it has answered it, so wait (at most 5 s) for its line. */
  const loggedUpstreams = async (request: RegExp, count: number, which = 'nginx'): Promise<string[]> => {
    const deadline = Date.now() + 5000
    let found = upstreamsOf(request, which)
    while (found.length < count && Date.now() < deadline) {
      await sleep(20)
      found = upstreamsOf(request, which)
    }
    return found
  }
  /** NGINX's `http` block for the example `config`, its access log under `which`. */
  const nginxHttp = (which: string, config: string): string => `
  log_format upstreams '$upstream_addr $remote_addr "$request" $status';
  access_log ${join(dir, which, 'logs', 'access.log')} upstreams;
${config}`

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sourcepool-deploy-'))
    database = await createPostgresSchema()
    const env = { DATABASE_URL: database.url, AUTH_TOKENS: TOKENS, AUTH_FAILURE_LIMIT: '3', TRUST_PROXY: NGINX_ADDRESS }
    const proxyPorts = [await freePort(), await freePort()]
    // One after the other, so the second finds the schema migrated.
    for (const proxyPort of proxyPorts) servers.push(await startServer({ ...env, PROXY_PORT: String(proxyPort) }))
    instances = servers.map((server) => new URL(server.url).host) as [string, string]
    dataPlanes = proxyPorts.map((proxyPort) => `127.0.0.1:${proxyPort}`) as [string, string]
    const port = await freePort()
    front = `http://127.0.0.1:${port}`
    nginx = await startNginx(join(dir, 'nginx'), nginxHttp('nginx', frontDoorConfig(port, instances)), port)
    const dataPlanePort = await freePort()
    dataPlaneFront = `http://127.0.0.1:${dataPlanePort}`
    dataPlaneNginx = await startNginx(join(dir, 'nginx-data-plane'),
      nginxHttp('nginx-data-plane', frontDoorConfig(dataPlanePort, dataPlanes, 'deploy/nginx-sourcepool-data-plane.conf', DATA_PLANE_PORT)), dataPlanePort)
  })

  after(async () => {
    await nginx?.stop()
    await dataPlaneNginx?.stop()
    for (const server of servers.splice(0)) await server.stop()
    await database?.drop()
    rmSync(dir, { recursive: true, force: true })
  })

  it('balances requests over both instances, which share one database', async () => {
    const pools: number[] = []
    for (let i = 0; i < 6; i++) {
      const created = await call(CLIENT, 'POST', `${front}/api/pools`, bearer(ADMIN), { name: `door-${i}`, category: 'rpc' })
      assert.equal(created.status, 200, JSON.stringify(created.body))
      pools.push(created.body.pool_id)
    }
    const chosen = await loggedUpstreams(/ "POST \/api\/pools HTTP/, 6)
    assert.equal(chosen.length, 6)
    assert.deepEqual(new Set(chosen), new Set(instances), 'both instances served creates')
    // Each pool read from the instance that did not create it.
    for (const [i, id] of pools.entries()) {
      const other = servers[instances.indexOf(chosen[i] as string) === 0 ? 1 : 0] as ServerProcess
      const read = await call(NGINX_ADDRESS, 'GET', `${other.url}/api/pools/${id}`, bearer(READER))
      assert.equal(read.status, 200)
      assert.equal(read.body.name, `door-${i}`)
    }
  })

  it('trusts the X-Forwarded-For NGINX sends: the audit trail has the real client, not NGINX nor what the client claimed', async () => {
    const created = await call(CLIENT, 'POST', `${front}/api/pools`, { ...bearer(ADMIN), 'x-forwarded-for': '203.0.113.66' }, { name: 'audited', category: 'rpc' })
    assert.equal(created.status, 200)
    for (const server of servers) {
      const audit = await call(NGINX_ADDRESS, 'GET', `${server.url}/api/audit?target=pool:${created.body.pool_id}`, bearer(ADMIN))
      assert.equal(audit.status, 200)
      assert.equal(audit.body.records[0].client_address, CLIENT)
    }
  })

  it('limits failed authentications per real client: one locked out, another behind the same NGINX is not', async () => {
    const locked = '127.0.0.3'
    let tries = 0
    let status = 0
    // Each instance counts its own failures: the limit (3) is met on one within 7 tries.
    while (status !== 429 && tries < 7) {
      status = (await call(locked, 'GET', `${front}/api/session`, bearer('wrong-secret-000000'))).status
      tries++
    }
    assert.equal(status, 429, `no 429 after ${tries} failed authentications`)
    const served = (await loggedUpstreams(/ 127\.0\.0\.4 "GET \/api\/session/, 0)).length
    for (let i = 0; i < 4; i++) assert.equal((await call('127.0.0.4', 'GET', `${front}/api/session`, bearer(READER))).status, 200)
    assert.deepEqual(new Set((await loggedUpstreams(/ 127\.0\.0\.4 "GET \/api\/session/, served + 4)).slice(served)), new Set(instances), 'both instances let the other client in')
  })

  it('passes the event stream through: an admin change made through the other instance arrives', async () => {
    const stream = await openStream(`${front}/api/events?type=admin`, bearer(READER), CLIENT)
    try {
      assert.equal(stream.response.statusCode, 200)
      assert.match(String(stream.response.headers['content-type']), /^text\/event-stream/)
      await stream.nextBlock((block) => block.startsWith('retry:'))
      // Two creates: NGINX alternates, so at least one goes through the instance not holding the stream.
      const ids: number[] = []
      for (const name of ['streamed-1', 'streamed-2']) {
        ids.push((await call(CLIENT, 'POST', `${front}/api/pools`, bearer(ADMIN), { name, category: 'rpc' })).body.pool_id)
      }
      for (const id of ids) {
        const block = await stream.nextBlock((text) => text.includes('event: admin') && text.includes(`"target":"pool:${id}"`))
        assert.match(block, /"action":"pool.create"/)
      }
    } finally {
      stream.close()
    }
  })

  it('forwards only the data plane through the data-plane variant, to PROXY_PORT: a pool by id and by name on both instances; the rest 404 without reaching them', async () => {
    const up = await upstream(json(200, { ok: true }))
    try {
      const admin = servers[0] as ServerProcess
      const provider = await call(NGINX_ADDRESS, 'POST', `${admin.url}/api/providers`, bearer(ADMIN), { name: 'door-plane-p', base_url: up.url })
      const pool = await call(NGINX_ADDRESS, 'POST', `${admin.url}/api/pools`, bearer(ADMIN), { name: 'door plane', category: 'rpc' })
      const member = await call(NGINX_ADDRESS, 'POST', `${admin.url}/api/pools/${pool.body.pool_id}/members`, bearer(ADMIN), { provider_id: provider.body.provider_id })
      assert.deepEqual([provider.status, pool.status, member.status], [200, 200, 200])
      for (const path of ['/p/door%20plane/q', `/api/pools/${pool.body.pool_id}/proxy/q`]) {
        for (let i = 0; i < 4; i++) {
          const answer = await call(CLIENT, 'GET', `${dataPlaneFront}${path}?i=${i}`, bearer(ADMIN))
          assert.equal(answer.status, 200, `${path}: ${JSON.stringify(answer.body)}`)
          assert.equal(answer.headers['x-sourcepool-provider'], 'door-plane-p')
          assert.deepEqual(answer.body, { ok: true })
        }
      }
      const served = await loggedUpstreams(/ "GET \/(p|api\/pools\/\d+)\/[^ ]*\?i=\d HTTP/, 8, 'nginx-data-plane')
      assert.equal(served.length, 8)
      assert.deepEqual(new Set(served), new Set(dataPlanes), 'both instances\' PROXY_PORT served')
      assert.equal(up.seen.length, 8)
      const refused = ['/api/pools', `/api/pools/${pool.body.pool_id}`, '/api/events', '/healthz', '/metrics', '/ui', '/docs']
      for (const path of refused) {
        const answer = await call(CLIENT, 'GET', `${dataPlaneFront}${path}`, bearer(ADMIN))
        assert.equal(answer.status, 404, path)
        assert.deepEqual(answer.body, { detail: 'Not Found' }, path)
      }
      // NGINX answered those itself: no upstream in their log lines.
      const unforwarded = await loggedUpstreams(/ "GET \/(api\/pools(\/\d+)?|api\/events|healthz|metrics|ui|docs) HTTP/, refused.length, 'nginx-data-plane')
      assert.deepEqual(unforwarded, refused.map(() => '-'))
      // And PROXY_PORT itself refuses them, should a location be written too wide.
      assert.equal((await call(NGINX_ADDRESS, 'GET', `http://${dataPlanes[0]}/api/pools`, bearer(ADMIN))).status, 404)
    } finally {
      await up.close()
    }
  })
}

// A skipped suite is left out of the summary's count: a skipped test in its place says so.
if (frontDoorSkip !== false) {
  it(FRONT_DOOR, { skip: frontDoorSkip }, () => {})
} else {
  describe(FRONT_DOOR, frontDoorSuite)
}

describe('the deployment files, by their linters', () => {
  it('Dockerfile: dockerfile-utils finds no problem; a non-root runtime with /healthz, /data and the start command of package.json', () => {
    const text = read('Dockerfile')
    assert.deepEqual(validate(text).map((problem) => `${problem.range.start.line + 1}: ${problem.message}`), [])
    const runtime = text.slice(text.lastIndexOf('\nFROM '))
    assert.match(runtime, /^USER node$/m)
    assert.match(runtime, /^VOLUME \["\/data"\]$/m)
    assert.match(runtime, /DATABASE_URL=sqlite:\/data\/pools\.db/)
    assert.match(runtime, /^HEALTHCHECK .*\n.*\/healthz/m)
    // The image starts the service as `npm start` does (without npm in between).
    const start = JSON.parse(read('package.json')).scripts.start as string
    const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(runtime)?.[1] ?? '[]') as string[]
    assert.equal(`exec ${cmd.join(' ')}`, start)
    assert.match(text, /npm ci --omit=dev/)
  })

  it('compose.yaml: dclint (the compose-spec schema and its rules) finds no problem; NGINX is the one trusted, and runs the example', () => {
    const lint = spawnSync(join(ROOT, 'node_modules', '.bin', 'dclint'), ['compose.yaml'], { cwd: ROOT, encoding: 'utf8' })
    assert.equal(lint.status, 0, lint.stdout + lint.stderr)
    assert.equal(lint.stdout.trim(), '', lint.stdout)
    const compose = parse(read('compose.yaml'), { merge: true })
    const nginxAddress = compose.services.nginx.networks.backend.ipv4_address
    for (const name of ['sourcepool-1', 'sourcepool-2']) {
      assert.equal(compose.services[name].environment.TRUST_PROXY, nginxAddress, name)
      assert.match(read('deploy/nginx-sourcepool.conf'), new RegExp(`^\\s*server ${name}:8000[ ;]`, 'm'))
    }
    assert.ok(compose.services.nginx.volumes.includes('./deploy/nginx-sourcepool.conf:/etc/nginx/conf.d/default.conf:ro'))
  })

  const analyze = spawnSync('systemd-analyze', ['--version']).error === undefined
  it('deploy/sourcepool.service: systemd-analyze verify says nothing', { skip: analyze ? false : 'systemd-analyze is not installed (Debian package systemd)' }, () => {
    const verify = spawnSync('systemd-analyze', ['verify', join(ROOT, 'deploy', 'sourcepool.service')], { encoding: 'utf8' })
    assert.equal(verify.status, 0, verify.stderr)
    assert.equal((verify.stdout + verify.stderr).trim(), '')
  })
})
