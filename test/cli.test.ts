/**
 * The `sourcepool` command against a real service process: plan's exit codes and
 * diff, apply, export → plan round trip, every command by name and by id with
 * `--json`, and one clear line (non-zero exit) for an unreachable service, a
 * 401, a 403 and a 422.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { after, before, it } from 'node:test'
import { DECLARED_FILE } from './fixtures.js'
import { describeOn, dialects, sharedDatabase, type TestDatabase } from './helpers.js'
import { freePort, runSourcepool, startServer, type ServerProcess } from './server-process.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'sourcepool-cli-'))
after(() => { rmSync(dir, { recursive: true, force: true }) })

/** Runs `sourcepool args…` in this file's folder. */
const sourcepool = async (args: string[], env: Record<string, string> = {}) => await runSourcepool(dir, args, env)

it('serve starts the service as npm start does, and stops it on SIGTERM', async () => {
  const port = await freePort()
  const child = spawn(process.execPath, [join(ROOT, 'bin/sourcepool.mjs'), 'serve'], {
    cwd: dir, env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'warn' }, stdio: 'ignore'
  })
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve))
  try {
    let ready = false
    for (let i = 0; i < 200 && !ready; i++) {
      ready = await fetch(`http://127.0.0.1:${port}/healthz`).then((res) => res.status === 200, () => false)
      if (!ready) await new Promise((resolve) => setTimeout(resolve, 50))
    }
    assert.ok(ready, 'serve answered /healthz')
  } finally {
    child.kill('SIGTERM')
  }
  assert.equal(await exited, 0)
})

const ADMIN = 'admin-secret-0123456789'
const READER = 'read-secret-0123456789'

for (const dialect of dialects) {
  describeOn(dialect, 'the sourcepool command', () => {
    let database: TestDatabase
    let server: ServerProcess
    let env: Record<string, string>
    before(async () => {
      database = await sharedDatabase(dialect)
      server = await startServer({ DATABASE_URL: database.url, AUTH_TOKENS: `ops:admin:${ADMIN},dash:read:${READER}` })
      env = { SOURCEPOOL_URL: server.url, SOURCEPOOL_TOKEN: ADMIN, PORTAL_A_KEY: 'key-a' }
      writeFileSync(join(dir, 'sourcepool.yaml'), DECLARED_FILE)
    })
    after(async () => {
      await server?.stop()
      await database?.drop()
    })

    it('plans (exit 2 with changes), applies, and plans again to no change (exit 0)', async () => {
      const planned = await sourcepool(['plan', 'sourcepool.yaml'], env)
      assert.equal(planned.code, 2, planned.stderr)
      assert.match(planned.stdout, /^\+ provider portal-a\n {4}base_url: https:\/\/a\.example\n {4}auth_headers: \{"x-api-key":"\*\*\*"\}/m)
      assert.match(planned.stdout, /^\+ member spending\/portal-b$/m)
      assert.match(planned.stdout, /Plan: 5 to create, 0 to update, 0 to delete\./)
      const refused = await sourcepool(['apply', 'sourcepool.yaml'], env)
      assert.equal(refused.code, 1)
      assert.match(refused.stderr, /refusing to apply without --yes/)
      const applied = await sourcepool(['apply', 'sourcepool.yaml', '--yes'], env)
      assert.equal(applied.code, 0, applied.stderr)
      assert.match(applied.stdout, /Applied: 5 to create/)
      const again = await sourcepool(['plan', 'sourcepool.yaml'], env)
      assert.equal(again.code, 0, again.stderr)
      assert.match(again.stdout, /No changes/)

      writeFileSync(join(dir, 'changed.yaml'), DECLARED_FILE.replace('https://b.example', 'https://b2.example').replace('      - provider: portal-b\n', ''))
      const diff = await sourcepool(['plan', 'changed.yaml', '--prune'], env)
      assert.equal(diff.code, 2)
      assert.match(diff.stdout, /^~ provider portal-b\n {4}base_url: https:\/\/b\.example → https:\/\/b2\.example$/m)
      assert.match(diff.stdout, /^- member spending\/portal-b$/m)
    })

    it('exports a file that plans back to no change', async () => {
      const exported = await sourcepool(['export'], env)
      assert.equal(exported.code, 0, exported.stderr)
      assert.match(exported.stdout, /x-api-key: \$\{SOURCEPOOL_PORTAL_A_X_API_KEY\}/)
      writeFileSync(join(dir, 'exported.yaml'), exported.stdout)
      const missing = await sourcepool(['plan', 'exported.yaml'], env)
      assert.equal(missing.code, 1)
      assert.match(missing.stderr, /exported\.yaml:\d+: providers\[0\]\.auth_headers\.x-api-key: environment variable SOURCEPOOL_PORTAL_A_X_API_KEY is not set/)
      const back = await sourcepool(['plan', 'exported.yaml'], { ...env, SOURCEPOOL_PORTAL_A_X_API_KEY: 'key-a' })
      assert.equal(back.code, 0, back.stdout + back.stderr)
    })

    it('looks at and acts on a pool named by name or by id, in tables or --json', async () => {
      const byName = JSON.parse((await sourcepool(['--json', 'status', 'spending'], env)).stdout)
      const byId = JSON.parse((await sourcepool(['--json', 'status', String(byName.pool_id)], env)).stdout)
      assert.equal(byId.name, 'spending')
      assert.deepEqual(byId.members.map((m: { provider_name: string }) => m.provider_name), ['portal-a', 'portal-b'])
      const rotated = await sourcepool(['rotate', 'spending', '--reason', 'scheduled'], env)
      assert.equal(rotated.code, 0, rotated.stderr)
      assert.match(rotated.stdout, /^Rotated to provider 'portal-a'$/m)
      const failed = JSON.parse((await sourcepool(['--json', 'failover', 'spending', 'portal-a'], env)).stdout)
      assert.equal(failed.new_provider_name, 'portal-b')
      const history = await sourcepool(['history', 'spending'], env)
      assert.match(history.stdout, /^TIME +FROM +TO +REASON +NOTES$/m)
      assert.match(history.stdout, /portal-a +portal-b +manual_failover/)
      const pools = await sourcepool(['pools'], env)
      assert.match(pools.stdout, /^1 +spending +round_robin +yes +portal-b +2\/2$/m)
      const status = await sourcepool(['status', 'spending'], env)
      assert.match(status.stdout, /^portal-a +1 +1 +healthy +- +- +- +0% +-$/m)
      const next = await sourcepool(['next', 'spending'], env)
      assert.match(next.stdout, /^The round_robin strategy picks 'portal-a'\.$/m)
      const unknown = await sourcepool(['status', 'nope'], env)
      assert.deepEqual([unknown.code, unknown.stderr], [1, "sourcepool: no pool named 'nope'\n"])
    })

    it('takes an address without a scheme as http://, and refuses another scheme in a line', async () => {
      const bare = server.url.replace(/^http:\/\//, '')
      const flag = await sourcepool(['--url', bare, 'pools'], env)
      assert.equal(flag.code, 0, flag.stderr)
      assert.match(flag.stdout, /^1 +spending +/m)
      const variable = await sourcepool(['pools'], { ...env, SOURCEPOOL_URL: bare })
      assert.equal(variable.code, 0, variable.stderr)
      const ftp = await sourcepool(['--url', `ftp://${bare}`, 'pools'], env)
      assert.deepEqual([ftp.code, ftp.stderr], [1, `sourcepool: --url ftp://${bare}: the service is reached over http:// or https://, not ftp://\n`])
      const broken = await sourcepool(['pools'], { ...env, SOURCEPOOL_URL: 'http://[::1' })
      assert.deepEqual([broken.code, broken.stderr], [1, "sourcepool: SOURCEPOOL_URL http://[::1 is not a URL: give the service's address, such as http://127.0.0.1:8000\n"])
    })

    it('says a pool named by an id that does not exist is not found, whatever the command', async () => {
      for (const args of [['rotate', '99'], ['failover', '99', 'portal-a'], ['history', '99'], ['status', '99'], ['next', '99']]) {
        const res = await sourcepool(args, env)
        assert.deepEqual([res.code, res.stderr], [1, 'sourcepool: Pool 99 not found\n'], args.join(' '))
      }
    })

    it('says what is wrong with a file\'s URL and strategy in words', async () => {
      writeFileSync(join(dir, 'wrong.yaml'), DECLARED_FILE.replace('https://a.example', 'a.example').replace('    category: public-spending\n', '    category: public-spending\n    rotation_strategy: fastest\n'))
      const res = await sourcepool(['plan', 'wrong.yaml'], env)
      assert.equal(res.code, 1)
      assert.match(res.stderr, /^(sourcepool: )?wrong\.yaml:\d+: providers\[0\]\.base_url: must be an http:\/\/ or https:\/\/ URL, without spaces$/m)
      const strategies = '"round_robin", "weighted", "priority", "least_used", "random", "least_latency", "least_outstanding", "consistent_hash"'
      assert.match(res.stderr, new RegExp(`^wrong\\.yaml:\\d+: pools\\[0\\]\\.rotation_strategy: must be one of ${strategies}$`, 'm'))
    })

    it('says in one line why the service could not be reached or refused, and exits non-zero', async () => {
      const port = await freePort()
      const unreachable = await sourcepool(['pools'], { ...env, SOURCEPOOL_URL: `http://127.0.0.1:${port}` })
      assert.equal(unreachable.code, 1)
      assert.match(unreachable.stderr, new RegExp(`^sourcepool: cannot reach the service at http://127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\)`))
      assert.equal(unreachable.stderr.trim().split('\n').length, 1)
      const noToken = await sourcepool(['pools'], { ...env, SOURCEPOOL_TOKEN: '' })
      assert.equal(noToken.code, 1)
      assert.match(noToken.stderr, /^sourcepool: the service wants a token \(401\): /)
      const reader = await sourcepool(['apply', 'sourcepool.yaml', '--yes'], { ...env, SOURCEPOOL_TOKEN: READER })
      assert.equal(reader.code, 1)
      assert.match(reader.stderr, /^sourcepool: the token may not do this \(403\): /)
      const invalid = await sourcepool(['rotate', 'spending', '--key', 'k'.repeat(300)], env)
      assert.equal(invalid.code, 1)
      assert.equal(invalid.stderr, 'sourcepool: the service refused the request:\n  body.key: String should have at most 256 characters\n')
    })
  })
}
