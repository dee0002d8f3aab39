/**
 * CONFIG_FILE with a real server process, on both databases: a file that does not
 * check out stops start-up with its problems (exit 2) before the database is
 * touched; a good one is applied at start under the actor `config`, and applying
 * it again at the next start writes nothing.
 */
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, it } from 'node:test'
import pg from 'pg'
import { DECLARED_FILE, FOUR_PROBLEM_FILE, FOUR_PROBLEMS } from './fixtures.js'
import { describeOn, dialects, sharedDatabase, type TestDatabase } from './helpers.js'
import { http, runMain, runSourcepool, startServer } from './server-process.js'

const dir = mkdtempSync(join(tmpdir(), 'sourcepool-config-file-'))
after(() => { rmSync(dir, { recursive: true, force: true }) })

for (const dialect of dialects) {
  describeOn(dialect, 'CONFIG_FILE at start', () => {
    let database: TestDatabase | undefined
    after(async () => { await database?.drop() })

    it('stops start-up on a bad file without touching the database', async () => {
      const file = join(dir, `bad-${dialect.name}.yaml`)
      writeFileSync(file, 'providers:\n  - name: a\n    colour: blue\npools:\n  - name: p\n    category: c\n    members:\n      - provider: a\n        weight: 0\n')
      const sqliteFile = join(dir, `untouched-${dialect.name}.db`)
      const url = dialect.name === 'sqlite' ? `sqlite:${sqliteFile}` : (database = await sharedDatabase(dialect)).url
      const { code, stderr } = await runMain({ DATABASE_URL: url, CONFIG_FILE: file, LOG_LEVEL: 'warn' })
      assert.equal(code, 2, stderr)
      assert.match(stderr, new RegExp(`${file}:3: providers\\[0\\]\\.colour: is not a field this object has`))
      assert.match(stderr, new RegExp(`${file}:9: pools\\[0\\]\\.members\\[0\\]\\.weight: must be >= 1`))
      if (dialect.name === 'sqlite') {
        assert.equal(existsSync(sqliteFile), false, 'no database file created')
      } else {
        const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL })
        await client.connect()
        try {
          const schema = new URL(url).searchParams.get('schema')
          const tables = await client.query('select count(*)::int as n from information_schema.tables where table_schema = $1', [schema])
          assert.equal(tables.rows[0].n, 0, 'no table created')
        } finally {
          await client.end()
        }
      }
      const unset = join(dir, `unset-${dialect.name}.yaml`)
      writeFileSync(unset, DECLARED_FILE)
      const missing = await runMain({ DATABASE_URL: url, CONFIG_FILE: unset, LOG_LEVEL: 'warn', PORTAL_A_KEY: '' })
      assert.equal(missing.code, 2, missing.stderr)
      assert.match(missing.stderr, new RegExp(`${unset}:5: providers\\[0\\]\\.auth_headers\\.x-api-key: environment variable PORTAL_A_KEY is not set`))
    })

    it('lists every problem of a file at once, its shape\'s and its references\', before touching the database', async () => {
      const file = join(dir, `four-${dialect.name}.yaml`)
      writeFileSync(file, FOUR_PROBLEM_FILE)
      const sqliteFile = join(dir, `untouched-four-${dialect.name}.db`)
      const url = dialect.name === 'sqlite' ? `sqlite:${sqliteFile}` : (database = await sharedDatabase(dialect)).url
      const { code, stderr } = await runMain({ DATABASE_URL: url, CONFIG_FILE: file, LOG_LEVEL: 'warn' })
      assert.equal(code, 2, stderr)
      assert.equal(stderr, `sourcepool: CONFIG_FILE does not check out, nothing was applied:\n${FOUR_PROBLEMS.map((problem) => `  ${file}:${problem}\n`).join('')}`)
      if (dialect.name === 'sqlite') assert.equal(existsSync(sqliteFile), false, 'no database file created')
    })

    it('applies a good file at start as `config`, and the same file again writes nothing', async () => {
      const file = join(dir, `good-${dialect.name}.yaml`)
      writeFileSync(file, DECLARED_FILE)
      database = await sharedDatabase(dialect)
      const env = { DATABASE_URL: database.url, CONFIG_FILE: file, PORTAL_A_KEY: 'secret-a' }
      for (let start = 0; start < 2; start++) {
        const server = await startServer(env)
        try {
          const pools = await http('GET', `${server.url}/api/pools`)
          assert.deepEqual(pools.body.pools.map((p: { name: string, members: unknown[] }) => [p.name, p.members.length]), [['spending', 2]])
          const audit = await http('GET', `${server.url}/api/audit`)
          assert.equal(audit.body.records.length, 5, `start ${start}: ${JSON.stringify(audit.body.records.map((r: { action: string }) => r.action))}`)
          assert.ok(audit.body.records.every((r: { actor: string }) => r.actor === 'config'))
        } finally {
          assert.equal(await server.stop(), 0)
        }
      }
    })
  })
}

it('the sourcepool command lists every problem of a file at once too, for plan and apply alike', async () => {
  const file = join(dir, 'four-cli.yaml')
  writeFileSync(file, FOUR_PROBLEM_FILE)
  // The file is checked before the service is asked: no service needed.
  const runs = await Promise.all([['plan', file], ['apply', file, '--yes']].map(async (args) => await runSourcepool(dir, args, { SOURCEPOOL_URL: 'http://127.0.0.1:9' })))
  for (const { code, stderr } of runs) {
    assert.notEqual(code, 0, stderr)
    for (const problem of FOUR_PROBLEMS) assert.ok(stderr.includes(`${file}:${problem}\n`), `${problem} in:\n${stderr}`)
  }
})
