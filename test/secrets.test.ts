/**
 * No output shows a stored credential. Distinct secrets are planted in every field
 * that can hold one — a base URL's userinfo password and lone user name (rows of
 * earlier versions: the API refuses both now), its secret-looking query values (one
 * under a percent-encoded name), a check path's token, credential headers — then
 * every route and command that shows provider data runs: plan and apply (each secret
 * changed, so a `from`/`to` would show it), export as JSON and YAML, every GET route
 * of the API for each scope (providers, pools, history, `/next`, activity, metrics,
 * the v1 routes…), the audit trail, the event stream (live and replayed), a proxied
 * request and a health check (their log lines), and the `sourcepool` command's plan,
 * apply and export. No planted value may appear in an answer's body or headers, in
 * the stream, in a log line or in the command's output, whatever the caller's scope
 * (an admin's own read of a provider included).
 */
/* eslint-disable no-template-curly-in-string -- `${NAME}` placeholders are what export writes */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, afterEach, beforeEach, it } from 'node:test'
import { parse, stringify } from 'yaml'
import { openStream } from './event-stream.js'
import { buildTestApp, describeOn, dialects, sleep, type TestApp } from './helpers.js'
import { runSourcepool } from './server-process.js'
import { json, upstream, type Upstream } from './upstreams.js'

const dir = mkdtempSync(join(tmpdir(), 'sourcepool-secrets-'))
after(() => { rmSync(dir, { recursive: true, force: true }) })

const ADMIN = 'admin-secret-0123456789'
const CLIENT = 'client-secret-0123456789'
const READER = 'read-secret-0123456789'
const AUTH_TOKENS = `ops:admin:${ADMIN},app:client:${CLIENT},dash:read:${READER}`
const SCOPES = { admin: ADMIN, client: CLIENT, read: READER }

/** A secret no other text holds by chance. */
const planted = (n: number) => `PLANTED_${n}_${randomBytes(6).toString('hex')}`
type Four = [string, string, string, string]
type Nine = [...Four, ...Four, string]

/** Runs `sourcepool args…` in this file's folder. */
const sourcepool = async (args: string[], env: Record<string, string> = {}) => await runSourcepool(dir, args, env)

for (const dialect of dialects) {
  describeOn(dialect, 'no output shows a stored credential', () => {
    let t: TestApp
    let provider: Upstream
    let url: string
    const logs: string[] = []
    /** Every output seen, by where it came from. */
    let outputs: Array<{ where: string, text: string }>
    beforeEach(async () => {
      logs.length = 0
      outputs = []
      provider = await upstream(json(200, { ok: true }))
      t = await buildTestApp(dialect, { healthCheckTimer: false, logger: { level: 'trace', stream: { write: (line: string) => { logs.push(line) } } } }, { AUTH_TOKENS })
      url = await t.app.listen({ port: 0, host: '127.0.0.1' })
    })
    afterEach(async () => {
      await t.close()
      await provider.close()
    })

    /** An API call as `scope`, its answer kept as an output. */
    const call = async (method: string, path: string, payload?: unknown, scope: keyof typeof SCOPES = 'admin') => {
      const res = await t.app.inject({ method: method as 'GET', url: path, headers: { authorization: `Bearer ${SCOPES[scope]}` }, payload: payload as object })
      outputs.push({ where: `${method} ${path} as ${scope}`, text: `${JSON.stringify(res.headers)}\n${res.body}` })
      const isJson = String(res.headers['content-type']).startsWith('application/json')
      return { status: res.statusCode, headers: res.headers, text: res.body, body: isJson ? JSON.parse(res.body) : undefined }
    }

    /** Where each of `secrets` shows in `seen` ("" when nowhere). */
    const shown = (secrets: readonly string[], seen: ReadonlyArray<{ where: string, text: string }>) =>
      seen.flatMap(({ where, text }) => secrets.filter((s) => text.includes(s)).map((s) => `${s} in ${where}: …${text.slice(Math.max(0, text.indexOf(s) - 80), text.indexOf(s) + 40)}…`)).join('\n')

    it('keeps every planted secret out of plans, applies, exports, reads, audit, events, logs and the command', async () => {
      const [apiKey1, encoded1, checkToken1, header1, password1, lonePassword1, loneUser1, sig1, bearer1] = [1, 2, 3, 4, 5, 6, 7, 8, 9].map(planted) as Nine
      const [apiKey2, encoded2, checkToken2, header2] = [11, 12, 13, 14].map(planted) as Four
      const [apiKey3, encoded3, checkToken3, header3] = [21, 22, 23, 24].map(planted) as Four
      const [apiKeyOnly, apiKeyOther] = [31, 32].map(planted) as [string, string]
      const [echoed1, echoed2] = [41, 42].map(planted) as [string, string]
      const host = provider.url.slice('http://'.length)
      const stateOf = (apiKey: string, encoded: string, checkToken: string, header: string, region = 'eu') => ({
        providers: [{
          name: 'portal-a',
          // `client_%73ecret` is `client_secret` once decoded: secret by name only when the name is read decoded.
          base_url: `http://${host}/v1?api_key=${apiKey}&client_%73ecret=${encoded}&region=${region}`,
          auth_headers: { 'x-api-key': header },
          health_check: { path: `/health?token=${checkToken}&deep=1` }
        }],
        pools: [{ name: 'spending', category: 'c', members: [{ provider: 'portal-a' }] }]
      })
      const eventStream = await openStream(`${url}/api/events`, { authorization: `Bearer ${ADMIN}` })
      try {
        // Created by a declared state: the answer shows a new provider's credentials as ***.
        const created = await call('POST', '/api/config/apply', stateOf(apiKey1, encoded1, checkToken1, header1))
        assert.equal(created.status, 200, created.text)
        const [createdProvider] = created.body.changes
        assert.equal(createdProvider.fields.base_url.to, `http://${host}/v1?api_key=***&client_%73ecret=***&region=eu`)
        assert.deepEqual(createdProvider.fields.health_check.to.path, '/health?token=***&deep=1')

        // Only the api_key changes: still one update, its value marked changed, the rest of the URL in clear.
        const onlyKey = await call('POST', '/api/config/plan', stateOf(apiKeyOnly, encoded1, checkToken1, header1))
        assert.deepEqual(onlyKey.body.summary, { create: 0, update: 1, delete: 0 })
        assert.deepEqual(onlyKey.body.changes[0].fields, {
          base_url: { from: `http://${host}/v1?api_key=***&client_%73ecret=***&region=eu`, to: `http://${host}/v1?api_key=*** (changed)&client_%73ecret=***&region=eu` }
        })
        // What the fingerprint hashes is what is shown: nothing of a credential's value to guess from.
        const otherKey = await call('POST', '/api/config/plan', stateOf(apiKeyOther, encoded1, checkToken1, header1))
        assert.equal(otherKey.body.fingerprint, onlyKey.body.fingerprint)

        // Rows of earlier versions: userinfo in base_url (refused by the API now, still served).
        const legacy = await call('POST', '/api/config/apply', {
          providers: [{ name: 'legacy-b', base_url: `http://${host}/b?sig=${sig1}` }, { name: 'legacy-c', base_url: `http://${host}/c`, auth_headers: { authorization: `Bearer ${bearer1}` } }],
          pools: [{ name: 'legacy', category: 'c', members: [{ provider: 'legacy-b' }, { provider: 'legacy-c' }] }]
        })
        assert.equal(legacy.status, 200, legacy.text)
        const plant = async (name: string, baseUrl: string) => { await t.database.db.updateTable('providers').set({ base_url: baseUrl }).where('name', '=', name).execute() }
        await plant('portal-a', `http://user:${password1}@${host}/v1?api_key=${apiKey1}&client_%73ecret=${encoded1}&region=eu`)
        await plant('legacy-b', `http://svc:${lonePassword1}@${host}/b?sig=${sig1}`)
        await plant('legacy-c', `http://${loneUser1}@${host}/c`)
        const basic = Buffer.from(`user:${password1}`).toString('base64')

        // The data plane: proxied requests and a health check (their log lines).
        const pools = (await call('GET', '/api/pools?fields=summary')).body.pools as Array<{ pool_id: number, name: string }>
        const poolIds = pools.map((p) => p.pool_id)
        for (const id of [...poolIds, ...poolIds]) assert.equal((await call('GET', `/api/pools/${id}/proxy/data?x=1`, undefined, 'client')).status, 200)
        // A flush of the proxied traffic may hold the provider's row a moment (PostgreSQL's claim skips a locked row): asked again.
        const checked = () => provider.seen.some((s) => s.url.includes(checkToken1))
        for (let tries = 0; !checked() && tries < 50; tries++) {
          await t.app.healthChecks.checkNow()
          if (!checked()) await sleep(100)
        }
        assert.ok(checked(), 'the check was sent, with its token')

        // Export, both formats: placeholders for every credential.
        const exported = await call('GET', '/api/config/export')
        const yaml = await call('GET', '/api/config/export?format=yaml')
        assert.deepEqual(parse(yaml.text), exported.body)
        const a = exported.body.providers.find((p: { name: string }) => p.name === 'portal-a')
        assert.equal(a.base_url, `http://user:\${SOURCEPOOL_PORTAL_A_PASSWORD}@${host}/v1?api_key=\${SOURCEPOOL_PORTAL_A_API_KEY}&client_%73ecret=\${SOURCEPOOL_PORTAL_A_CLIENT_SECRET}&region=eu`)
        assert.equal(a.health_check.path, '/health?token=${SOURCEPOOL_PORTAL_A_TOKEN}&deep=1')
        assert.deepEqual(a.auth_headers, { 'x-api-key': '${SOURCEPOOL_PORTAL_A_X_API_KEY}' })
        const b = exported.body.providers.find((p: { name: string }) => p.name === 'legacy-b')
        assert.equal(b.base_url, `http://svc:\${SOURCEPOOL_LEGACY_B_PASSWORD}@${host}/b?sig=\${SOURCEPOOL_LEGACY_B_SIG}`)
        const c = exported.body.providers.find((p: { name: string }) => p.name === 'legacy-c')
        assert.equal(c.base_url, `http://\${SOURCEPOOL_LEGACY_C_USERNAME}@${host}/c`)

        // Every secret changed: each shows as *** (changed), the region's change in clear, the password's removal as the userinfo going.
        const changed = await call('POST', '/api/config/plan', stateOf(apiKey2, encoded2, checkToken2, header2, 'us'))
        assert.equal(changed.status, 200, changed.text)
        assert.deepEqual(changed.body.changes, [{
          kind: 'provider',
          action: 'update',
          name: 'portal-a',
          fields: {
            base_url: {
              from: `http://user:***@${host}/v1?api_key=***&client_%73ecret=***&region=eu`,
              to: `http://${host}/v1?api_key=*** (changed)&client_%73ecret=*** (changed)&region=us`
            },
            auth_headers: { from: { 'x-api-key': '***' }, to: { 'x-api-key': '*** (changed)' } },
            health_check: {
              from: { path: '/health?token=***&deep=1', interval_s: 10, timeout_ms: 2000, expect_status: ['200-399'], healthy_threshold: 2, unhealthy_threshold: 3 },
              to: { path: '/health?token=*** (changed)&deep=1', interval_s: 10, timeout_ms: 2000, expect_status: ['200-399'], healthy_threshold: 2, unhealthy_threshold: 3 }
            }
          }
        }])

        // The command: plan, apply and export print what the service answers, never a credential.
        const env = { SOURCEPOOL_URL: url, SOURCEPOOL_TOKEN: ADMIN, A_KEY: apiKey2, A_SECRET: encoded2, A_TOKEN: checkToken2, A_HEADER: header2 }
        const file = stringify(stateOf('${A_KEY}', '${A_SECRET}', '${A_TOKEN}', '${A_HEADER}', 'us'))
        writeFileSync(join(dir, `${dialect.name}.yaml`), file)
        for (const args of [['plan', `${dialect.name}.yaml`], ['apply', `${dialect.name}.yaml`, '--yes'], ['export'], ['--json', 'export']]) {
          const run = await sourcepool(args, env)
          assert.ok(run.code === 0 || (args[0] === 'plan' && run.code === 2), `${args.join(' ')}: ${run.stderr}`)
          outputs.push({ where: `sourcepool ${args.join(' ')}`, text: `${run.stdout}\n${run.stderr}` })
          if (args[0] === 'plan') assert.match(run.stdout, /^ {4}base_url: http:\/\/user:\*\*\*@.*\?api_key=\*\*\*&client_%73ecret=\*\*\*&region=eu → http:\/\/.*\?api_key=\*\*\* \(changed\)&client_%73ecret=\*\*\* \(changed\)&region=us$/m)
        }

        // A refused state: the 422 echoes what was sent, credentials masked, and so do its logs.
        const refused = await call('POST', '/api/config/plan', { providers: [{ name: 'x', base_url: `https://u:${echoed1}@h.example/?api_key=${echoed2}`, timeout_ms: 1 }] })
        assert.equal(refused.status, 422, refused.text)

        // An apply through the API, every secret changed again.
        const applied = await call('POST', '/api/config/apply', stateOf(apiKey3, encoded3, checkToken3, header3))
        assert.deepEqual(applied.body.summary, { create: 0, update: 1, delete: 0 })

        // Every GET route that shows stored data, for each scope.
        const [providerId] = (await call('GET', '/api/providers', undefined, 'read')).body.map((p: { id: number }) => p.id)
        for (const [key, scope] of t.app.routeScopes) {
          const [method, path] = key.split(' ') as [string, string]
          if (method !== 'GET' || !path.startsWith('/api/') || path.includes('*') || path === '/api/events' || path === '/api/v1/ws/chat') continue
          for (const caller of ['read', 'client', 'admin'] as const) {
            if (scope === 'admin' && caller !== 'admin') continue
            for (const id of path.includes(':pool_id') ? poolIds : [providerId]) {
              const res = await call('GET', path.replace(':pool_id', String(id)).replace(':provider_id', String(id)).replace(':chunk_id', '1'), undefined, caller)
              assert.ok(res.status < 500, `${path}: ${res.status}`)
            }
          }
        }
        await call('GET', '/metrics', undefined, 'read')
        const trail = (await call('GET', '/api/audit?limit=500')).body.records as Array<{ action: string, changes: any }>
        const update = trail.find((r) => r.action === 'provider.update')
        assert.equal(update?.changes.base_url.to, `http://${host}/v1?api_key=*** (changed)&client_%73ecret=*** (changed)&region=eu`, 'an apply is audited as shown')
        await call('GET', '/api/v1/status/endpoints', undefined, 'read')

        // The stream, live and replayed from the start.
        const audits = (await call('GET', '/api/audit?limit=1')).body.total as number
        const admins = () => eventStream.events.filter((e) => e.event === 'admin').length
        for (let waited = 0; admins() < audits && waited < 5000; waited += 20) await sleep(20)
        assert.equal(admins(), audits, 'every admin change came on the stream')
        outputs.push({ where: 'the event stream', text: eventStream.blocks.join('\n\n') })
        const replay = await openStream(`${url}/api/events`, { authorization: `Bearer ${ADMIN}`, 'last-event-id': '0-0' })
        try {
          await replay.waitFor(audits)
          outputs.push({ where: 'the event stream, replayed', text: replay.blocks.join('\n\n') })
        } finally {
          replay.close()
        }

        const secrets = [
          apiKey1, encoded1, checkToken1, header1, password1, lonePassword1, loneUser1, sig1, bearer1, basic,
          apiKey2, encoded2, checkToken2, header2, apiKey3, encoded3, checkToken3, header3, apiKeyOnly, apiKeyOther, echoed1, echoed2
        ]
        outputs.push(...logs.map((line, i) => ({ where: `log line ${i}`, text: line })))
        assert.ok(logs.some((line) => line.includes('/proxy/data')), 'the proxied requests were logged')
        assert.equal(shown(secrets, outputs), '')
      } finally {
        eventStream.close()
      }
    })

    it('keeps a stored URL that no longer parses out of the error written to the log', async () => {
      const key = planted(61)
      const state = { providers: [{ name: 'old', base_url: `${provider.url}/v1` }], pools: [{ name: 'old', category: 'c', members: [{ provider: 'old' }] }] }
      assert.equal((await call('POST', '/api/config/apply', state)).status, 200)
      // A row an earlier version stored: a port the URL parser refuses, a key in its query.
      await t.database.db.updateTable('providers').set({ base_url: `http://127.0.0.1:99999/v1?api_key=${key}` }).execute()
      const pool = (await call('GET', '/api/pools?fields=summary')).body.pools[0].pool_id as number
      const res = await call('GET', `/api/pools/${pool}/proxy/x`, undefined, 'client')
      assert.ok(res.status >= 500, String(res.status))
      assert.ok(logs.some((line) => line.includes('"level":50')), 'the failure was logged as an error')
      assert.equal(shown([key], [...outputs, ...logs.map((line, i) => ({ where: `log line ${i}`, text: line }))]), '')
    })

    it('keeps a provider\'s echo of its own credentials from the caller (a redirect\'s Location, any header)', async () => {
      const key = planted(51)
      const token = planted(52)
      const redirecting = await upstream((req, res) => {
        res.writeHead(302, {
          location: `${redirecting.url}/v2${req.url ?? ''}`,
          'x-echo': `key=${encodeURIComponent(key)}; auth=${req.headers['x-api-token'] as string}`,
          link: `<${redirecting.url}/next?api_key=${key}&signature=their-own>; rel="next"`
        }).end()
      })
      try {
        const state = {
          providers: [{ name: 'r', base_url: `${redirecting.url}/v1?api_key=${key}`, auth_headers: { 'x-api-token': token } }],
          pools: [{ name: 'r', category: 'c', members: [{ provider: 'r' }] }]
        }
        assert.equal((await call('POST', '/api/config/apply', state)).status, 200)
        const pool = (await call('GET', '/api/pools?fields=summary')).body.pools[0].pool_id as number
        const res = await call('GET', `/api/pools/${pool}/proxy/x`, undefined, 'client')
        assert.equal(res.status, 302)
        assert.equal(res.headers.location, `${redirecting.url}/v2/v1/x?api_key=***`)
        assert.equal(res.headers['x-echo'], 'key=***; auth=***')
        // What is not a stored credential (a signature of the provider's own) passes as sent.
        assert.match(String(res.headers.link), /api_key=\*\*\*&signature=their-own/)
        assert.equal(shown([key, token], outputs), '')
      } finally {
        await redirecting.close()
      }
    })
  })
}
