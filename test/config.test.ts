import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { ConfigError, loadConfig } from '../src/config.js'
import { runMain } from './server-process.js'

/** The settings deploy/sourcepool.env sets, as systemd's EnvironmentFile reads them. */
function deployedEnv (): Record<string, string> {
  const text = readFileSync(new URL('../deploy/sourcepool.env', import.meta.url), 'utf8')
  return Object.fromEntries(text.split('\n').filter((line) => /^[A-Z_]+=/.test(line)).map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]))
}

/** deploy/sourcepool.env's AUTH_TOKENS entries. */
const deployedTokens = () => (deployedEnv().AUTH_TOKENS ?? '').split(',')

describe('loadConfig', () => {
  it('defaults to 127.0.0.1:8000 and the SQLite file under ./data', () => {
    const config = loadConfig({})
    assert.equal(config.host, '127.0.0.1')
    assert.equal(config.port, 8000)
    assert.equal(config.databaseUrl, 'sqlite:./data/pools.db')
    assert.equal(config.logLevel, 'info')
    assert.ok(Object.isFrozen(config))
  })

  it('reads HOST, PORT, LOG_LEVEL and DATABASE_URL', () => {
    const config = loadConfig({ HOST: '0.0.0.0', PORT: '9001', LOG_LEVEL: 'warn', DATABASE_URL: 'postgres://u@db:5432/x', ALLOW_UNAUTHENTICATED: 'true' })
    assert.deepEqual({ ...config }, {
      host: '0.0.0.0',
      port: 9001,
      proxyPort: null,
      proxyHost: '0.0.0.0',
      logLevel: 'warn',
      databaseUrl: 'postgres://u@db:5432/x',
      bodyLimit: 1048576,
      authTokens: [],
      adminRateLimit: null,
      authFailureLimit: 30,
      publicDocs: true,
      shutdownTimeoutMs: 10000,
      requestTimeoutMs: 30000,
      headersTimeoutMs: 10000,
      keepAliveTimeoutMs: 72000,
      maxRefusalsPerProvider: 1000,
      auditMaxAgeDays: null,
      flushIntervalMs: 100,
      healthCheckConcurrency: 16,
      configFile: null,
      eventsHeartbeatMs: 15_000,
      eventsMaxClients: 1000,
      eventsClientBufferBytes: 1024 * 1024,
      eventsStallMs: 30_000,
      historyMaxPerPool: 10_000,
      historyMaxAgeDays: null,
      trustProxy: false,
      cacheUrl: null,
      cacheKeyPrefix: 'sourcepool:cache:',
      cacheMaxBytes: 64 * 1024 * 1024,
      cacheMaxEntryBytes: 1024 * 1024,
      corsOrigins: null,
      workers: 1
    })
    assert.equal(loadConfig({ DATABASE_URL: 'sqlite::memory:' }).databaseUrl, 'sqlite::memory:')
    assert.equal(loadConfig({ ADMIN_RATE_LIMIT: '5', SHUTDOWN_TIMEOUT_MS: '250' }).adminRateLimit, 5)
  })

  it('reads the limits: timeouts, auth failures, docs, refusals, audit age; `off` turns a limit off', () => {
    const config = loadConfig({
      REQUEST_TIMEOUT_MS: '5000',
      HEADERS_TIMEOUT_MS: '2000',
      KEEP_ALIVE_TIMEOUT_MS: '1000',
      AUTH_FAILURE_LIMIT: 'off',
      PUBLIC_DOCS: 'false',
      MAX_REFUSALS_PER_PROVIDER: '50',
      AUDIT_MAX_AGE_DAYS: '90'
    })
    assert.deepEqual(
      [config.requestTimeoutMs, config.headersTimeoutMs, config.keepAliveTimeoutMs, config.authFailureLimit, config.publicDocs, config.maxRefusalsPerProvider, config.auditMaxAgeDays],
      [5000, 2000, 1000, null, false, 50, 90])
    // The headers timeout follows a short request timeout down.
    assert.equal(loadConfig({ REQUEST_TIMEOUT_MS: '3000' }).headersTimeoutMs, 3000)
    assert.equal(loadConfig({ ADMIN_RATE_LIMIT: 'off' }).adminRateLimit, null)
    assert.equal(loadConfig({ AUTH_FAILURE_LIMIT: '0' }).authFailureLimit, null)
  })

  it('reads the history limits: 10,000 records per pool and no age limit by default; `off` keeps every record', () => {
    const defaults = loadConfig({})
    assert.deepEqual([defaults.historyMaxPerPool, defaults.historyMaxAgeDays], [10_000, null])
    const set = loadConfig({ HISTORY_MAX_PER_POOL: ' 10 ', HISTORY_MAX_AGE_DAYS: '90' })
    assert.deepEqual([set.historyMaxPerPool, set.historyMaxAgeDays], [10, 90])
    assert.equal(loadConfig({ HISTORY_MAX_PER_POOL: '100000000' }).historyMaxPerPool, 100_000_000)
    assert.equal(loadConfig({ HISTORY_MAX_AGE_DAYS: '36500' }).historyMaxAgeDays, 36_500)
    for (const off of ['off', 'OFF', '0']) {
      const config = loadConfig({ HISTORY_MAX_PER_POOL: off, HISTORY_MAX_AGE_DAYS: off })
      assert.deepEqual([config.historyMaxPerPool, config.historyMaxAgeDays], [null, null], off)
    }
  })

  it('reads the response cache settings, and refuses a CACHE_URL that is not Redis or a bad prefix or size', () => {
    const config = loadConfig({ CACHE_URL: 'redis://127.0.0.1:6379/2', CACHE_KEY_PREFIX: 'prod:', CACHE_MAX_BYTES: '1048576', CACHE_MAX_ENTRY_BYTES: '4096' })
    assert.deepEqual([config.cacheUrl, config.cacheKeyPrefix, config.cacheMaxBytes, config.cacheMaxEntryBytes], ['redis://127.0.0.1:6379/2', 'prod:', 1048576, 4096])
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ CACHE_URL: 'memcached://127.0.0.1:11211' }, /^CACHE_URL: must be a redis:\/\/ or rediss:\/\/ URL$/],
      [{ CACHE_KEY_PREFIX: 'has space:' }, /^CACHE_KEY_PREFIX: at most 200 characters, no spaces$/],
      [{ CACHE_MAX_BYTES: '-1' }, /^CACHE_MAX_BYTES: /],
      [{ CACHE_MAX_ENTRY_BYTES: 'big' }, /^CACHE_MAX_ENTRY_BYTES: /]
    ]
    for (const [env, message] of cases) {
      assert.throws(() => loadConfig(env), (error: unknown) => error instanceof ConfigError && message.test(error.message), JSON.stringify(env))
    }
  })

  it('refuses history limits out of range, naming the variable and what is allowed', () => {
    const perPool = (text: string) => new RegExp(`^HISTORY_MAX_PER_POOL: '${text}' is not a whole number from 10 to 100000000, or off$`)
    const age = (text: string) => new RegExp(`^HISTORY_MAX_AGE_DAYS: '${text}' is not a whole number from 1 to 36500, or off$`)
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ HISTORY_MAX_PER_POOL: '9' }, perPool('9')],
      [{ HISTORY_MAX_PER_POOL: '100000001' }, perPool('100000001')],
      [{ HISTORY_MAX_PER_POOL: '-10' }, perPool('-10')],
      [{ HISTORY_MAX_PER_POOL: '1e4' }, perPool('1e4')],
      [{ HISTORY_MAX_PER_POOL: 'all' }, perPool('all')],
      [{ HISTORY_MAX_AGE_DAYS: '1.5' }, age('1\\.5')],
      [{ HISTORY_MAX_AGE_DAYS: '36501' }, age('36501')],
      [{ HISTORY_MAX_AGE_DAYS: 'a week' }, age('a week')]
    ]
    for (const [env, message] of cases) {
      assert.throws(() => loadConfig(env), (error: unknown) => error instanceof ConfigError && message.test(error.message), JSON.stringify(env))
    }
  })

  it('refuses a non-loopback HOST without tokens unless ALLOW_UNAUTHENTICATED=true', () => {
    assert.throws(() => loadConfig({ HOST: '0.0.0.0' }), /^Error: HOST: refusing to serve 0\.0\.0\.0 without authentication/)
    assert.equal(loadConfig({ HOST: '0.0.0.0', ALLOW_UNAUTHENTICATED: 'true' }).host, '0.0.0.0')
    assert.equal(loadConfig({ HOST: '0.0.0.0', AUTH_TOKENS: 'ops:admin:0123456789abcdef' }).authTokens.length, 1)
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1']) assert.equal(loadConfig({ HOST: host }).host, host)
  })

  it('reads tokens from AUTH_TOKENS or AUTH_TOKENS_FILE and never echoes a secret', () => {
    const tokens = loadConfig({ AUTH_TOKENS: 'ops:admin:aaaaaaaaaaaaaaaa1,app:client:bbbbbbbbbbbbbbbb2, grafana:read:cccccccccccccccc3' }).authTokens
    assert.deepEqual(tokens.map((t) => [t.name, t.scope]), [['ops', 'admin'], ['app', 'client'], ['grafana', 'read']])
    const dir = mkdtempSync(join(tmpdir(), 'sourcepool-tokens-'))
    const file = join(dir, 'tokens')
    writeFileSync(file, '# operators\nops:admin:aaaaaaaaaaaaaaaa1\n\napp:client:bbbbbbbbbbbbbbbb2\n')
    assert.deepEqual(loadConfig({ AUTH_TOKENS_FILE: file }).authTokens.map((t) => t.name), ['ops', 'app'])
    rmSync(dir, { recursive: true, force: true })
    const bad: Array<[Record<string, string>, RegExp]> = [
      [{ AUTH_TOKENS: 'ops:root:aaaaaaaaaaaaaaaa1' }, /^AUTH_TOKENS: entry 1 \('ops'\): the scope must be one of read, client, admin$/],
      [{ AUTH_TOKENS: 'ops:admin:short-secret' }, /the secret must be at least 16 characters/],
      [{ AUTH_TOKENS: 'ops:admin:aaaaaaaaaaaaaaaa1,ops:read:bbbbbbbbbbbbbbbb2' }, /used twice/],
      [{ AUTH_TOKENS: 'ops:admin:aaaaaaaaaaaaaaaa1,app:read:aaaaaaaaaaaaaaaa1' }, /^AUTH_TOKENS: entry 2 \('app'\): the secret is also entry 1's; every token needs its own$/],
      [{ AUTH_TOKENS_FILE: '/nonexistent/tokens' }, /^AUTH_TOKENS_FILE: cannot read/],
      [{ AUTH_TOKENS: 'a:admin:aaaaaaaaaaaaaaaa1', AUTH_TOKENS_FILE: '/x' }, /not both/]
    ]
    for (const [env, message] of bad) {
      assert.throws(() => loadConfig(env), (error: unknown) => error instanceof ConfigError && message.test(error.message) &&
        !/aaaaaaaaaaaaaaaa1|short-secret|bbbbbbbbbbbbbbbb2/.test(error.message), JSON.stringify(env))
    }
  })

  it('refuses a token whose secret is a placeholder (the example\'s, the docs\', or one saying so), naming the token, never the secret', () => {
    const placeholders = [
      ...deployedTokens().map((entry) => entry.split(':').slice(2).join(':')),
      '<32 random characters>', '9f2c…long-random…', 'c01d…long-random…', // docs/deployment.md, docs/operations.md
      'CHANGE_ME_0123456789', 'please-changeme-later', 'my-example-token-1234', 'placeholder-for-the-ops-token', 'xxxxxxxxxxxxxxxxxxxx', 'replace_with_a_real_secret'
    ]
    assert.equal(placeholders.length, 11, 'deploy/sourcepool.env ships two token secrets')
    for (const secret of placeholders) {
      assert.throws(() => loadConfig({ AUTH_TOKENS: `app:client:aaaaaaaaaaaaaaaa1,ops:admin:${secret}` }), (error: unknown) => error instanceof ConfigError &&
        /^AUTH_TOKENS: entry 2 \('ops'\): the secret is a placeholder \(the deployment example's or the docs', or one containing replace-with, replace-me, change-me, example, placeholder or xxxx\); put a random one in its place, e.g\. openssl rand -hex 24$/.test(error.message) &&
        !error.message.includes(secret), secret)
    }
    // Random secrets, and the ones the test suites use, are not placeholders.
    for (const secret of ['admin-secret-0123456789', 'ops-admin-secret-0001', '0123456789abcdef', 'kS3-xx_9QxXz0aB1cD2eF3gH4iJ5kL6m', '<leading-bracket-only-0123']) {
      assert.equal(loadConfig({ AUTH_TOKENS: `ops:admin:${secret}` }).authTokens.length, 1, secret)
    }
  })

  it('refuses a DATABASE_URL whose password is a placeholder (the deployment example\'s), without echoing it', () => {
    const example = readFileSync(new URL('../deploy/sourcepool.env', import.meta.url), 'utf8').match(/^#DATABASE_URL=(postgres.*)$/m)?.[1]
    assert.ok(example !== undefined, 'deploy/sourcepool.env shows a PostgreSQL DATABASE_URL')
    for (const url of [example, example.replace('postgres://', 'postgresql://'), 'postgres://user:pass@host:5432/db', 'postgres://app:change-me@db/x']) {
      // The whole line: it holds no part of the URL.
      assert.throws(() => loadConfig({ DATABASE_URL: url }), (error: unknown) => error instanceof ConfigError && error.message ===
        "DATABASE_URL: the password is a placeholder (the deployment example's or the docs', or one containing replace-with, replace-me, change-me, example, placeholder or xxxx); give the database user's real password", url)
    }
    assert.equal(loadConfig({ DATABASE_URL: 'postgresql://app:9b1e3f0c7a2d@db/x' }).databaseUrl, 'postgresql://app:9b1e3f0c7a2d@db/x')
  })

  it('names postgresql:// beside postgres:// in its DATABASE_URL errors, as both are accepted', () => {
    assert.throws(() => loadConfig({ DATABASE_URL: 'mysql://x' }), /^Error: DATABASE_URL: must start with 'sqlite:', 'postgres:\/\/' or 'postgresql:\/\/'$/)
    assert.throws(() => loadConfig({ DATABASE_URL: 'postgresql://' }), /^Error: DATABASE_URL: not a parseable postgres:\/\/ or postgresql:\/\/ URL$/)
    assert.equal(loadConfig({ DATABASE_URL: 'postgresql://u@db:5432/x' }).databaseUrl, 'postgresql://u@db:5432/x')
  })

  it('names the variable of a bad value', () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ PORT: '70000' }, /^PORT: '70000'/],
      [{ PORT: 'eighty' }, /^PORT: /],
      [{ PORT: '-1' }, /^PORT: /],
      [{ LOG_LEVEL: 'loud' }, /^LOG_LEVEL: /],
      [{ ADMIN_RATE_LIMIT: '-3' }, /^ADMIN_RATE_LIMIT: /],
      [{ AUTH_FAILURE_LIMIT: 'many' }, /^AUTH_FAILURE_LIMIT: /],
      [{ PUBLIC_DOCS: 'yes please' }, /^PUBLIC_DOCS: /],
      [{ REQUEST_TIMEOUT_MS: '10' }, /^REQUEST_TIMEOUT_MS: /],
      [{ REQUEST_TIMEOUT_MS: '1000', HEADERS_TIMEOUT_MS: '2000' }, /^HEADERS_TIMEOUT_MS: 2000 is longer than REQUEST_TIMEOUT_MS/],
      [{ KEEP_ALIVE_TIMEOUT_MS: 'forever' }, /^KEEP_ALIVE_TIMEOUT_MS: /],
      [{ MAX_REFUSALS_PER_PROVIDER: '0' }, /^MAX_REFUSALS_PER_PROVIDER: /],
      [{ AUDIT_MAX_AGE_DAYS: '1.5' }, /^AUDIT_MAX_AGE_DAYS: /],
      [{ SHUTDOWN_TIMEOUT_MS: 'soon' }, /^SHUTDOWN_TIMEOUT_MS: /],
      [{ ALLOW_UNAUTHENTICATED: 'maybe' }, /^ALLOW_UNAUTHENTICATED: /],
      [{ HOST: 'bad host!' }, /^HOST: /],
      [{ DATABASE_URL: 'mysql://x' }, /^DATABASE_URL: /],
      [{ DATABASE_URL: 'postgres://' }, /^DATABASE_URL: /],
      [{ DATABASE_URL: 'sqlite:' }, /^DATABASE_URL: /],
      [{ WORKERS: '0' }, /^WORKERS: '0' is not a whole number from 1 to 64, or auto$/],
      [{ WORKERS: '65' }, /^WORKERS: '65' /],
      [{ WORKERS: 'all' }, /^WORKERS: 'all' /],
      [{ WORKERS: '1.5' }, /^WORKERS: '1.5' /],
      [{ WORKERS: '-2' }, /^WORKERS: '-2' /],
      [{ WORKERS: '2', DATABASE_URL: 'sqlite::memory:' }, /^WORKERS: 2 workers cannot share sqlite::memory: /]
    ]
    for (const [env, message] of cases) {
      assert.throws(() => loadConfig(env), (error: unknown) => error instanceof ConfigError && message.test(error.message), JSON.stringify(env))
    }
  })

  it('reads TRUST_PROXY: off by default, true, a hop count, or addresses and CIDR ranges', () => {
    for (const off of [undefined, '', 'false', 'off', '0', ' FALSE ']) {
      assert.equal(loadConfig(off === undefined ? {} : { TRUST_PROXY: off }).trustProxy, false, String(off))
    }
    assert.equal(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, true)
    assert.equal(loadConfig({ TRUST_PROXY: 'True' }).trustProxy, true)
    assert.equal(loadConfig({ TRUST_PROXY: '1' }).trustProxy, 1)
    assert.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2)
    assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.5' }).trustProxy, ['10.0.0.5'])
    assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.5, 172.31.240.0/24,fd00::/8 ,::1,loopback' }).trustProxy,
      ['10.0.0.5', '172.31.240.0/24', 'fd00::/8', '::1', 'loopback'])
  })

  it('refuses a TRUST_PROXY that is not true, a hop count or addresses, in one line naming the entry', () => {
    const cases: Array<[string, RegExp]> = [
      ['yes', /^TRUST_PROXY: 'yes' is not an IP address or CIDR range \(use true, a hop count, or addresses such as 10\.0\.0\.5,10\.1\.0\.0\/16\)$/],
      ['10.0.0.5,nginx', /^TRUST_PROXY: 'nginx' is not an IP address or CIDR range/],
      ['10.0.0.0/33', /^TRUST_PROXY: '10\.0\.0\.0\/33' is not/],
      ['fd00::/129', /^TRUST_PROXY: 'fd00::\/129' is not/],
      ['10.0.0.0/8/1', /^TRUST_PROXY: '10\.0\.0\.0\/8\/1' is not/],
      ['10.0.0.0/', /^TRUST_PROXY: '10\.0\.0\.0\/' is not/],
      ['10.0.0.5,', /^TRUST_PROXY: '' is not/],
      ['-1', /^TRUST_PROXY: '-1' is not/],
      ['101', /^TRUST_PROXY: '101' is not a hop count from 1 to 100$/]
    ]
    for (const [value, message] of cases) {
      assert.throws(() => loadConfig({ TRUST_PROXY: value }), (error: unknown) => error instanceof ConfigError && message.test(error.message), value)
    }
  })

  it('reads WORKERS: 1 by default, a count from 1 to 64, or auto (the cores Node may use)', () => {
    assert.equal(loadConfig({}).workers, 1)
    assert.equal(loadConfig({ WORKERS: ' 2 ' }).workers, 2)
    assert.equal(loadConfig({ WORKERS: '64' }).workers, 64)
    assert.equal(loadConfig({ WORKERS: 'AUTO' }).workers, Math.min(availableParallelism(), 64))
  })

  it('never echoes a database password', () => {
    assert.throws(() => loadConfig({ DATABASE_URL: 'postgres://user:s3cret@[bad' }), (error: Error) => !error.message.includes('s3cret'))
  })
})

describe('start-up with a bad setting', () => {
  it('exits with code 2 and one clear line naming the variable', async () => {
    const { code, stderr } = await runMain({ PORT: '99999', DATABASE_URL: 'sqlite::memory:' })
    assert.equal(code, 2)
    assert.equal(stderr.trim().split('\n').length, 1)
    assert.match(stderr, /invalid configuration: PORT: '99999' is not a port number/)
  })

  it('exits with code 2 and one line for a history limit out of range', async () => {
    const perPool = await runMain({ HISTORY_MAX_PER_POOL: '5', DATABASE_URL: 'sqlite::memory:' })
    assert.equal(perPool.code, 2)
    assert.equal(perPool.stderr.trim().split('\n').length, 1)
    assert.match(perPool.stderr, /invalid configuration: HISTORY_MAX_PER_POOL: '5' is not a whole number from 10 to 100000000, or off/)
    const age = await runMain({ HISTORY_MAX_AGE_DAYS: 'forever', DATABASE_URL: 'sqlite::memory:' })
    assert.equal(age.code, 2)
    assert.match(age.stderr, /invalid configuration: HISTORY_MAX_AGE_DAYS: 'forever' is not a whole number from 1 to 36500, or off/)
  })

  it('exits with code 2 and one line for a bad TRUST_PROXY', async () => {
    const { code, stderr } = await runMain({ TRUST_PROXY: 'front-door', DATABASE_URL: 'sqlite::memory:' })
    assert.equal(code, 2)
    assert.equal(stderr.trim().split('\n').length, 1)
    assert.match(stderr, /invalid configuration: TRUST_PROXY: 'front-door' is not an IP address or CIDR range/)
  })

  it('exits with code 2 and one line naming the token when started with deploy/sourcepool.env as shipped', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sourcepool-deploy-env-'))
    try {
      const env = { ...deployedEnv(), PORT: '0', DATABASE_URL: `sqlite:${join(dir, 'pools.db')}` }
      const { code, stderr } = await runMain(env, undefined, 15_000)
      assert.equal(code, 2, stderr)
      assert.equal(stderr.trim().split('\n').length, 1, stderr)
      assert.match(stderr, /^sourcepool: invalid configuration: AUTH_TOKENS: entry 1 \('ops'\): the secret is a placeholder /)
      assert.ok(!stderr.includes('replace-with-'), stderr)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('exits with code 2 for an unparseable DATABASE_URL', async () => {
    const { code, stderr } = await runMain({ DATABASE_URL: 'postgres://[nope' })
    assert.equal(code, 2)
    assert.match(stderr, /DATABASE_URL/)
  })
})
