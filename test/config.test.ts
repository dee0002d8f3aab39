import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ConfigError, loadConfig } from '../src/config.js'
import { runMain } from './server-process.js'

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
    const config = loadConfig({ HOST: '0.0.0.0', PORT: '9001', LOG_LEVEL: 'warn', DATABASE_URL: 'postgres://u@db:5432/x' })
    assert.deepEqual({ ...config }, { host: '0.0.0.0', port: 9001, logLevel: 'warn', databaseUrl: 'postgres://u@db:5432/x', bodyLimit: 1048576 })
    assert.equal(loadConfig({ DATABASE_URL: 'sqlite::memory:' }).databaseUrl, 'sqlite::memory:')
  })

  it('names the variable of a bad value', () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ PORT: '70000' }, /^PORT: '70000'/],
      [{ PORT: 'eighty' }, /^PORT: /],
      [{ PORT: '-1' }, /^PORT: /],
      [{ LOG_LEVEL: 'loud' }, /^LOG_LEVEL: /],
      [{ HOST: 'bad host!' }, /^HOST: /],
      [{ DATABASE_URL: 'mysql://x' }, /^DATABASE_URL: /],
      [{ DATABASE_URL: 'postgres://' }, /^DATABASE_URL: /],
      [{ DATABASE_URL: 'sqlite:' }, /^DATABASE_URL: /]
    ]
    for (const [env, message] of cases) {
      assert.throws(() => loadConfig(env), (error: unknown) => error instanceof ConfigError && message.test(error.message), JSON.stringify(env))
    }
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

  it('exits with code 2 for an unparseable DATABASE_URL', async () => {
    const { code, stderr } = await runMain({ DATABASE_URL: 'postgres://[nope' })
    assert.equal(code, 2)
    assert.match(stderr, /DATABASE_URL/)
  })
})
