/**
 * The `sourcepool` command against a real service process: plan's exit codes and
 * diff, apply, export → plan round trip, every command by name and by id with
 * `--json`, one clear line (non-zero exit) for an unreachable service, a missing,
 * refused or too weak token and a 422; `demo`'s providers and pool; `serve` and `demo`
 * run by npx stopping with it; the compiled CLI run when it is current.
 */
import assert from 'node:assert/strict'
import { execFileSync, spawn } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { after, before, it } from 'node:test'
import { DECLARED_FILE } from './fixtures.js'
import { describeOn, dialects, sharedDatabase, type TestDatabase } from './helpers.js'
import { npxSourcepool } from './npx-process.js'
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

/** Whether something answers HTTP at `url`. */
const answers = async (url: string) => await fetch(url).then(() => true, () => false)

/** Waits until `ready()` holds, up to `timeoutMs`. */
async function until (ready: () => Promise<boolean>, timeoutMs = 30_000): Promise<boolean> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline;) {
    if (await ready()) return true
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return false
}

it('npx sourcepool serve stops when npx is told to, leaving no process behind', async () => {
  const port = await freePort()
  const serve = npxSourcepool(['serve'], { HOST: '127.0.0.1', PORT: String(port), DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'warn' })
  try {
    assert.ok(await until(async () => await fetch(`http://127.0.0.1:${port}/healthz`).then((res) => res.status === 200, () => false)), `serve answered /healthz:\n${serve.output()}`)
  } finally {
    await serve.stop()
  }
  assert.equal(await answers(`http://127.0.0.1:${port}/healthz`), false, 'the port is closed')
})

it('npx sourcepool demo stops when npx is told to, leaving no process behind', async () => {
  const demo = npxSourcepool(['demo', '--port', '0'])
  let url: string | undefined
  try {
    url = (await demo.waitFor(/^demo-a +(http:\/\/127\.0\.0\.1:\d+)/m))[1] as string
    assert.equal((await fetch(`${url}/control`)).status, 200)
  } finally {
    await demo.stop()
  }
  assert.equal(await answers(`${url}/control`), false, 'the port is closed')
})

it('runs the compiled CLI when dist/ is built and newer than the sources it compiles, the TypeScript otherwise', () => {
  const root = mkdtempSync(join(tmpdir(), 'sourcepool-bin-'))
  try {
    for (const folder of ['bin', 'src/cli', 'dist/cli']) mkdirSync(join(root, folder), { recursive: true })
    for (const file of ['bin/sourcepool.mjs', 'bin/dist-current.mjs']) copyFileSync(join(ROOT, file), join(root, file))
    symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'))
    writeFileSync(join(root, 'package.json'), '{"type":"module"}')
    writeFileSync(join(root, 'src/cli/main.ts'), "export async function run (): Promise<void> { process.stdout.write('source') }\n")
    writeFileSync(join(root, 'src/cli/other.ts'), 'export const other: number = 1\n')
    writeFileSync(join(root, 'dist/cli/main.js'), "export async function run () { process.stdout.write('compiled') }\n")
    writeFileSync(join(root, 'dist/.tsbuildinfo'), '{}')
    const at = (file: string, seconds: number) => utimesSync(join(root, file), 1_700_000_000 + seconds, 1_700_000_000 + seconds)
    const ran = () => execFileSync(process.execPath, [join(root, 'bin/sourcepool.mjs')], { encoding: 'utf8' })
    for (const file of ['src/cli/main.ts', 'src/cli/other.ts']) at(file, 0)
    at('dist/cli/main.js', 10)
    at('dist/.tsbuildinfo', 10)
    assert.equal(ran(), 'compiled', 'built after every source')
    writeFileSync(join(root, 'src/cli/other.test.ts'), '')
    writeFileSync(join(root, 'src/cli/types.d.ts'), '')
    assert.equal(ran(), 'compiled', 'tests and declarations are not compiled')
    at('src/cli/other.ts', 20)
    assert.equal(ran(), 'source', 'a source changed since the build')
    at('dist/.tsbuildinfo', 30)
    assert.equal(ran(), 'compiled', 'built again')
    rmSync(join(root, 'dist'), { recursive: true })
    assert.equal(ran(), 'source', 'never built')
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
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
      // A quota in credits says so.
      const portalA = byId.members[0].provider_id as number
      const metered = await fetch(`${server.url}/api/providers/${portalA}`, {
        method: 'PUT', headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN}` }, body: JSON.stringify({ rate_limit: { credits: 100, per: 'day' } })
      })
      assert.equal(metered.status, 200)
      assert.match((await sourcepool(['status', 'spending'], env)).stdout, /^portal-a +1 +1 +healthy +- +0\/100 credits, resets \d+m\d{2}s +/m)
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
      assert.match(reader.stderr, /^sourcepool: the token given by SOURCEPOOL_TOKEN may not do this \(403\): /)
      const invalid = await sourcepool(['rotate', 'spending', '--key', 'k'.repeat(300)], env)
      assert.equal(invalid.code, 1)
      assert.equal(invalid.stderr, 'sourcepool: the service refused the request:\n  body.key: String should have at most 256 characters\n')
    })

    it('says a token given was refused, and where it came from, never the token itself', async () => {
      const wrong = 'not-a-token-0123456789'
      const fromEnv = await sourcepool(['pools'], { ...env, SOURCEPOOL_TOKEN: wrong })
      assert.deepEqual([fromEnv.code, fromEnv.stderr], [1, "sourcepool: the service refused the token given by SOURCEPOOL_TOKEN (401): Not authenticated; it is not one of the service's tokens (AUTH_TOKENS)\n"])
      const fromFlag = await sourcepool(['--token', wrong, 'pools'], env)
      assert.deepEqual([fromFlag.code, fromFlag.stderr], [1, "sourcepool: the service refused the token given by --token (401): Not authenticated; it is not one of the service's tokens (AUTH_TOKENS)\n"])
      const none = await sourcepool(['pools'], { ...env, SOURCEPOOL_TOKEN: '' })
      assert.equal(none.stderr, 'sourcepool: the service wants a token (401): Not authenticated; set SOURCEPOOL_TOKEN or --token\n')
      const weak = await sourcepool(['--token', READER, 'rotate', 'spending'], env)
      assert.deepEqual([weak.code, weak.stderr], [1, 'sourcepool: the token given by --token may not do this (403): Not enough permissions; it needs a token of scope client\n'])
      for (const res of [fromEnv, fromFlag, weak]) assert.ok(!res.stderr.includes(wrong) && !res.stderr.includes(READER))
    })

    it('counts the healthy members among the enabled ones, the disabled apart', async () => {
      writeFileSync(join(dir, 'quiet.yaml'), `${DECLARED_FILE}  - name: quiet\n    category: public-spending\n    members:\n      - provider: portal-a\n      - provider: portal-b\n        enabled: false\n`)
      const applied = await sourcepool(['apply', 'quiet.yaml', '--yes'], env)
      assert.equal(applied.code, 0, applied.stderr)
      const pools = await sourcepool(['pools'], env)
      assert.match(pools.stdout, /^\d+ +quiet +round_robin +yes +- +1\/1 \(1 disabled\)$/m)
      assert.match(pools.stdout, /^1 +spending +round_robin +yes +\S+ +2\/2$/m)
    })

    it('demo starts providers of prices, and --pool declares them and a pool over them that the proxy serves', async () => {
      const demo = spawn(process.execPath, [join(ROOT, 'bin/sourcepool.mjs'), 'demo', '--port', '0', '--pool', 'demo-prices'], {
        cwd: dir, env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe']
      })
      let output = ''
      demo.stdout.on('data', (chunk) => { output += String(chunk) })
      demo.stderr.on('data', (chunk) => { output += String(chunk) })
      const exited = new Promise<number | null>((resolve) => demo.on('exit', resolve))
      const shown = /^Pool 'demo-prices' \(id (\d+)\) serves them: curl -s '([^']+)' -H "Authorization: Bearer \$SOURCEPOOL_TOKEN"$/m
      try {
        assert.ok(await until(async () => shown.test(output) || demo.exitCode !== null), output)
        const [, , proxied] = shown.exec(output) as RegExpExecArray
        const urls = [...output.matchAll(/^(demo-[abc]) +(http:\/\/127\.0\.0\.1:\d+) +(\d+) ms$/gm)].map((m) => m[2] as string)
        assert.equal(urls.length, 3, output)
        const res = await fetch(proxied as string, { headers: { authorization: `Bearer ${ADMIN}` } })
        assert.equal(res.status, 200)
        assert.match(res.headers.get('x-sourcepool-provider') ?? '', /^demo-[abc]$/)
        assert.equal(res.headers.get('cache-control'), 'max-age=30')
        assert.equal(res.headers.get('x-ratelimit-limit'), '120')
        const price = await res.json() as Record<string, unknown>
        assert.deepEqual(Object.keys(price), ['provider', 'symbol', 'price', 'at', 'calls'])
        assert.equal(price.symbol, 'BTC')
        assert.ok(typeof price.price === 'number' && price.price > 0)

        const [a] = urls as [string]
        await fetch(`${a}/control`, { method: 'POST', body: '{"rate_limited":true}' })
        const limited = await fetch(`${a}/v1/prices?symbol=ETH`)
        assert.deepEqual([limited.status, limited.headers.get('retry-after')], [429, '10'])
        await fetch(`${a}/control`, { method: 'POST', body: '{"fail":true}' })
        assert.equal((await fetch(`${a}/health`)).status, 503)
        assert.equal((await fetch(`${a}/control`, { method: 'POST', body: '{}' })).status, 200)
        assert.equal((await fetch(`${a}/health`)).status, 200)
      } finally {
        demo.kill('SIGTERM')
      }
      assert.equal(await exited, 0, output)
      for (const url of output.matchAll(/http:\/\/127\.0\.0\.1:\d+/g)) {
        if (!url[0].endsWith(new URL(server.url).port)) assert.equal(await answers(`${url[0]}/health`), false, `${url[0]} closed`)
      }
    })
  })
}
