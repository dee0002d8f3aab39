/**
 * Reading a declared state file: every problem with its file, path and line;
 * `${ENV}` credentials resolved, and an unset one refused.
 */
/* eslint-disable no-template-curly-in-string -- `${NAME}` placeholders are what these tests are about */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { FOUR_PROBLEM_FILE, FOUR_PROBLEMS } from '../../test/fixtures.js'
import { DeclaredFileError, formatProblem, MAX_FILE_BYTES, parseDeclaredFile, readDeclaredFile } from './declared-file.js'

/** The problems of `text`, formatted, or [] when it checks out. */
function problems (text: string, env: Record<string, string> = {}): string[] {
  try {
    parseDeclaredFile(text, 'sourcepool.yaml', env)
    return []
  } catch (error) {
    assert.ok(error instanceof DeclaredFileError, String(error))
    return error.problems.map(formatProblem)
  }
}

const GOOD = `# two portals and a pool
providers:
  - name: portal-a
    base_url: https://a.example
    auth_headers:
      x-api-key: \${PORTAL_A_KEY}
      authorization: Bearer \${PORTAL_A_TOKEN}
  - name: portal-b
    base_url: https://b.example
pools:
  - name: spending
    category: public-spending
    rotation_strategy: priority
    members:
      - provider: portal-a
        priority: 2
      - provider: portal-b
`

describe('declared state files', () => {
  it('reads a good file, credentials from the environment, defaults filled in', () => {
    const { desired } = parseDeclaredFile(GOOD, 'sourcepool.yaml', { PORTAL_A_KEY: 'k', PORTAL_A_TOKEN: 't' })
    assert.equal(desired.providers[0]?.auth_headers, JSON.stringify({ 'x-api-key': 'k', authorization: 'Bearer t' }))
    assert.deepEqual(desired.pools[0]?.members, [{ provider: 'portal-a', priority: 2, weight: 1, enabled: 1 }, { provider: 'portal-b', priority: 1, weight: 1, enabled: 1 }])
    assert.equal(desired.pools[0]?.cooldown_seconds, 30)
    assert.equal(desired.prune, false)
    const json = parseDeclaredFile(JSON.stringify({ providers: [{ name: 'x' }], prune: true }), 'state.json', {}).desired
    assert.equal(json.prune, true)
  })

  it('names an unset environment variable where it is used', () => {
    assert.deepEqual(problems(GOOD, { PORTAL_A_KEY: 'k' }), ['sourcepool.yaml:7: providers[0].auth_headers.authorization: environment variable PORTAL_A_TOKEN is not set'])
  })

  it('checks credentials as filled in: a line break or a NUL from the environment is refused where it is used', () => {
    assert.deepEqual(problems(GOOD, { PORTAL_A_KEY: 'k\r\nInjected: 1', PORTAL_A_TOKEN: 'a\u0000b' }), [
      'sourcepool.yaml:6: providers[0].auth_headers.x-api-key: must match pattern "^[\\x20-\\x7e]*$"',
      'sourcepool.yaml:7: providers[0].auth_headers.authorization: must match pattern "^[\\x20-\\x7e]*$"'
    ])
    assert.deepEqual(problems('providers:\n  - name: a\n    description: "a\\0b"\n'), [
      'sourcepool.yaml:3: providers[0].description: text contains a NUL character or an unpaired surrogate, which cannot be stored'
    ])
    const filled = parseDeclaredFile('providers:\n  - name: a\n    base_url: https://a.example/?api_key=${A_KEY}\n', 'f.yaml', { A_KEY: 'K' })
    assert.equal(filled.desired.providers[0]?.base_url, 'https://a.example/?api_key=K')
  })

  it('fills in a WebSocket URL\'s credentials and reads the streams\' settings; a URL of the other kind is told in words', () => {
    const text = `providers:
  - name: a
    base_url: https://a.example
    ws_url: wss://a.example/ws?api_key=\${A_KEY}
pools:
  - name: p
    category: rpc
    ws_replay: 5
    ws_idle_timeout_ms: 0
`
    const { desired } = parseDeclaredFile(text, 'f.yaml', { A_KEY: 'K' })
    assert.equal(desired.providers[0]?.ws_url, 'wss://a.example/ws?api_key=K')
    assert.deepEqual([desired.pools[0]?.ws_replay, desired.pools[0]?.ws_idle_timeout_ms, desired.pools[0]?.ws_max_streams], ['5', 0, 1000])
    assert.deepEqual(problems(text), ['sourcepool.yaml:4: providers[0].ws_url: environment variable A_KEY is not set'])
    assert.deepEqual(problems('providers:\n  - name: a\n    base_url: wss://a.example\n    ws_url: https://a.example/ws\n'), [
      'sourcepool.yaml:3: providers[0].base_url: must be an http:// or https:// URL, without spaces',
      'sourcepool.yaml:4: providers[0].ws_url: must be a ws:// or wss:// URL, without spaces'
    ])
  })

  it('reads a file through a bounded read, and says why one cannot be read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sourcepool-file-'))
    try {
      await assert.rejects(readDeclaredFile(dir, {}), (error: unknown) => error instanceof DeclaredFileError && /cannot be read \(EISDIR\)/.test(error.message))
      const big = join(dir, 'big.yaml')
      writeFileSync(big, `# ${'x'.repeat(MAX_FILE_BYTES)}\n`)
      await assert.rejects(readDeclaredFile(big, {}), (error: unknown) => error instanceof DeclaredFileError && new RegExp(`larger than ${MAX_FILE_BYTES} bytes`).test(error.message))
      await assert.rejects(readDeclaredFile('/dev/zero', {}), (error: unknown) => error instanceof DeclaredFileError && /larger than/.test(error.message))
      const bomb = join(dir, 'bomb.yaml')
      writeFileSync(bomb, ['a: &a [x, x, x, x, x, x, x, x, x, x]', ...Array.from({ length: 8 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(10).fill(`*${String.fromCharCode(97 + i)}`).join(', ')}]`)].join('\n'))
      await assert.rejects(readDeclaredFile(bomb, {}), (error: unknown) => error instanceof DeclaredFileError && /alias/i.test(error.message))
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('gives the path and line of every schema problem', () => {
    const text = `providers:
  - name: a
    base_url: https://a.example
    timeout_ms: fast
    colour: blue
pools:
  - name: p
    rotation_strategy: fastest
    members:
      - provider: a
        weight: 0
`
    assert.deepEqual(problems(text), [
      'sourcepool.yaml:4: providers[0].timeout_ms: must be integer',
      'sourcepool.yaml:5: providers[0].colour: is not a field this object has',
      "sourcepool.yaml:7: pools[0]: is missing its required field 'category'",
      'sourcepool.yaml:8: pools[0].rotation_strategy: must be one of "round_robin", "weighted", "priority", "least_used", "random", "least_latency", "least_outstanding", "consistent_hash"',
      'sourcepool.yaml:11: pools[0].members[0].weight: must be >= 1'
    ])
  })

  it('reads the cache and wait fields of a pool (0 when absent), and gives the line of one out of range', () => {
    const text = `pools:
  - name: cached
    category: c
    cache_ttl_seconds: 60
    cache_stale_seconds: 86400
    max_wait_ms: 750
  - name: plain
    category: c
`
    const [cached, plain] = parseDeclaredFile(text, 'sourcepool.yaml', {}).desired.pools
    assert.deepEqual([cached?.cache_ttl_seconds, cached?.cache_stale_seconds, cached?.max_wait_ms], [60, 86_400, 750])
    assert.deepEqual([plain?.cache_ttl_seconds, plain?.cache_stale_seconds, plain?.max_wait_ms], [0, 0, 0])
    assert.deepEqual(problems(text.replace('max_wait_ms: 750', 'max_wait_ms: 30001').replace('cache_ttl_seconds: 60', 'cache_ttl_seconds: -5')), [
      'sourcepool.yaml:4: pools[0].cache_ttl_seconds: must be >= 0',
      'sourcepool.yaml:6: pools[0].max_wait_ms: must be <= 30000'
    ])
  })

  it('gives the path and line of the rules the API applies, and of names that do not add up', () => {
    const text = `providers:
  - name: a
    base_url: https://user:pw@a.example
  - name: b
    health_check:
      path: /health
  - name: a
pools:
  - name: p
    category: c
    members:
      - provider: ghost
      - provider: b
      - provider: b
`
    assert.deepEqual(problems(text), [
      'sourcepool.yaml:3: providers[0].base_url: base_url may not carry credentials (user:password@); put them in auth_headers, e.g. {"authorization": "Basic <base64 of user:password>"}',
      "sourcepool.yaml:5: providers[1].health_check: a health check needs the provider's base_url",
      "sourcepool.yaml:7: providers[2].name: provider 'a' is declared twice (first as providers[0])",
      "sourcepool.yaml:12: pools[0].members[0].provider: no provider 'ghost' is declared in this state",
      "sourcepool.yaml:14: pools[0].members[2].provider: provider 'b' is a member of this pool twice (first as members[1])"
    ])
  })

  it('reports every problem at once: its shape\'s and its references\', checked wherever the file parsed', () => {
    assert.deepEqual(problems(FOUR_PROBLEM_FILE), FOUR_PROBLEMS.map((problem) => `sourcepool.yaml:${problem}`))
    // An unset variable too; the value left unfilled is not told of again as a URL that is not one.
    const unset = FOUR_PROBLEM_FILE.replace('base_url: portal-a.example', 'base_url: ${PORTAL_A_URL}')
    assert.deepEqual(problems(unset), [
      'sourcepool.yaml:3: providers[0].base_url: environment variable PORTAL_A_URL is not set',
      ...FOUR_PROBLEMS.slice(1).map((problem) => `sourcepool.yaml:${problem}`)
    ])
    // A misspelt `providers` leaves the declared names unknown: no member is said to name nobody.
    assert.deepEqual(problems('provders:\n  - name: a\npools:\n  - name: p\n    category: c\n    members:\n      - provider: a\n'), [
      'sourcepool.yaml:1: provders: is not a field this object has'
    ])
    // A misshapen entry's name still counts, for references and for names declared twice.
    assert.deepEqual(problems('providers:\n  - name: a\n    timeout_ms: soon\n  - name: a\npools:\n  - name: p\n    category: c\n    members:\n      - provider: a\n      - provider: b\n'), [
      'sourcepool.yaml:3: providers[0].timeout_ms: must be integer',
      "sourcepool.yaml:4: providers[1].name: provider 'a' is declared twice (first as providers[0])",
      "sourcepool.yaml:10: pools[0].members[1].provider: no provider 'b' is declared in this state"
    ])
  })

  it('reports YAML errors with their line, and refuses what is not a mapping', () => {
    const [yamlError] = problems('providers:\n  - name: a\n    base_url: [unclosed\n')
    assert.match(yamlError ?? '', /^sourcepool\.yaml:\d+: /)
    assert.deepEqual(problems('- a\n- b\n'), ["sourcepool.yaml:1: a state is a mapping with 'providers' and 'pools', not a list"])
    assert.match(problems('providers:\n  - name: a\n    name: b\n')[0] ?? '', /^sourcepool\.yaml:3: .*[Uu]nique/)
  })
})
