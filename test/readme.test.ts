/**
 * The walkthroughs, run as written, so they can never drift from what the service
 * does: the README's five minutes with a file (the service started with the
 * example file, then every `npx sourcepool` command, each table line shown after
 * `# →` found in its output), and the quick start with curl of docs/api.md (every
 * command through bash and curl against a fresh server, every answer shown —
 * `…` standing for any value — the answer given). And no document links outside
 * the repository or to a file that does not exist.
 */
import assert from 'node:assert/strict'
import { execFile, execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { after, before, describe, it } from 'node:test'
import { http, startServer, type ServerProcess } from './server-process.js'
import { json, upstream, type Upstream } from './upstreams.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const README = readFileSync(join(ROOT, 'README.md'), 'utf8')
const API = readFileSync(join(ROOT, 'docs/api.md'), 'utf8')
const run = promisify(execFile)

interface Step { command: string, answer: string[] }

/** The `sh` blocks of a document's section. */
function blocks (text: string, title: string): string[] {
  const start = text.indexOf(title)
  assert.ok(start !== -1, `a section '${title}'`)
  const end = text.indexOf('\n## ', start + title.length)
  return [...text.slice(start, end === -1 ? undefined : end).matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] as string)
}

/** The commands of the quick start's first `sh` block, each with the answer shown after it (`# → …` and its `#   ` continuations). */
function quickStartSteps (): Step[] {
  const section = API.slice(API.indexOf('## Quick start with curl'))
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1]
  assert.ok(block !== undefined, 'the README has a quick start with an sh block')
  const steps: Step[] = []
  let pending = ''
  let answering = false
  for (const line of block.split('\n')) {
    const last = steps[steps.length - 1]
    if (answering && last !== undefined && /^#\s{2,}/.test(line)) {
      last.answer.push(line.replace(/^#\s+/, ''))
      continue
    }
    answering = line.startsWith('# → ')
    if (answering) {
      assert.ok(last !== undefined && last.answer.length === 0, `an answer without its command: ${line}`)
      last.answer.push(line.slice('# → '.length))
      continue
    }
    if (line.startsWith('#') || line.trim() === '') continue
    pending += line.endsWith('\\') ? `${line.slice(0, -1)} ` : line
    if (!line.endsWith('\\')) {
      steps.push({ command: pending, answer: [] })
      pending = ''
    }
  }
  return steps
}

/** Whether `actual` is `expected` with every `"…"` standing for any value. */
function matches (actual: unknown, expected: unknown, path = '$'): void {
  if (expected === '…') return
  if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual), `${path}: expected an array, got ${JSON.stringify(actual)}`)
    assert.equal(actual.length, expected.length, `${path}: length`)
    expected.forEach((item, i) => matches(actual[i], item, `${path}[${i}]`))
    return
  }
  if (expected !== null && typeof expected === 'object') {
    assert.ok(actual !== null && typeof actual === 'object' && !Array.isArray(actual), `${path}: expected an object, got ${JSON.stringify(actual)}`)
    assert.deepEqual(Object.keys(actual), Object.keys(expected), `${path}: fields`)
    for (const [key, value] of Object.entries(expected)) matches((actual as Record<string, unknown>)[key], value, `${path}.${key}`)
    return
  }
  assert.equal(actual, expected, path)
}

describe('README', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sourcepool-readme-'))
  after(() => { rmSync(dir, { recursive: true, force: true }) })

  it('five minutes with a file runs as written and shows what it says', async () => {
    const [start, look, change] = blocks(README, '## Five minutes with a file')
    assert.match(start ?? '', /CONFIG_FILE=examples\/sourcepool\.yaml DATABASE_URL=sqlite:\.\/data\/demo\.db npm start/)
    const server = await startServer({ DATABASE_URL: `sqlite:${join(dir, 'walkthrough.db')}`, CONFIG_FILE: 'examples/sourcepool.yaml' })
    const env = { ...process.env, SOURCEPOOL_URL: server.url, NO_COLOR: '1' }
    const squeeze = (line: string) => line.trim().replace(/\s+/g, ' ')
    try {
      for (const block of [look, change]) {
        const steps: Array<{ command: string, shown: string[] }> = []
        for (const line of (block ?? '').split('\n')) {
          if (line.startsWith('# → ')) steps.at(-1)?.shown.push(line.slice('# → '.length))
          else if (line.startsWith('npx sourcepool')) steps.push({ command: line.replace(/\s+#.*$/, '').replace('> running.yaml', `> ${join(dir, 'running.yaml')}`), shown: [] })
        }
        assert.ok(steps.length >= 3, block)
        for (const step of steps) {
          const { stdout } = await run('bash', ['-c', step.command], { cwd: ROOT, env })
          const lines = stdout.split('\n').map(squeeze)
          for (const shown of step.shown) assert.ok(lines.includes(squeeze(shown)), `${step.command}: '${shown}' not in\n${stdout}`)
        }
      }
      assert.match(readFileSync(join(dir, 'running.yaml'), 'utf8'), /name: spending/)
    } finally {
      await server.stop()
    }
  })

  it('quick start runs as written and answers what it shows', async () => {
    const steps = quickStartSteps()
    assert.ok(steps.filter((s) => s.answer.length > 0).length >= 8, 'the quick start shows its answers')
    const server = await startServer({ DATABASE_URL: `sqlite:${join(dir, 'pools.db')}` })
    try {
      const host = new URL(server.url).host
      for (const step of steps) {
        assert.match(step.command, /^curl /, 'the quick start is curl commands')
        const command = step.command.replaceAll('localhost:8000', host)
        const { stdout } = await run('bash', ['-c', command])
        const answer: unknown = JSON.parse(stdout)
        if (step.answer.length === 0) {
          assert.ok(answer !== null && typeof answer === 'object' && !('detail' in answer), `${step.command} → ${stdout}`)
        } else {
          matches(answer, JSON.parse(step.answer.join('')), step.command)
        }
      }
    } finally {
      await server.stop()
    }
  })

  describe('calling a pool from your application', () => {
    const section = README.slice(README.indexOf('## Calling a pool from your application'), README.indexOf('## The dashboard'))
    const code = (language: string) => {
      const found = new RegExp('```' + language + '\\n([\\s\\S]*?)```').exec(section)?.[1]
      assert.ok(found !== undefined, `a ${language} example`)
      return found
    }
    /** The lines an example says it prints (`# → …` or `// → …`). */
    const shown = (example: string) => [...example.matchAll(/^(?:#|\/\/) → (.*)$/gm)].map((m) => (m[1] as string).trim())
    const CLIENT = 'client-secret-0123456789'
    let server: ServerProcess
    let portal: Upstream
    let env: NodeJS.ProcessEnv
    /** Runs `program` with `example`, written to a file, where the service of the example is the test's. */
    const runExample = async (program: string, file: string, example: string) => {
      const path = join(dir, file)
      writeFileSync(path, example.replaceAll('127.0.0.1:8000', new URL(server.url).host))
      const { stdout } = await run(program, [path], { env })
      return stdout.split('\n').map((line) => line.trim())
    }

    before(async () => {
      portal = await upstream((req, res) => {
        if (req.url === '/contratos?codigoOrgao=26000') json(200, { contratos: ['c-1', 'c-2'] })(req, res)
        else json(404, { erro: 'not here' })(req, res)
      })
      server = await startServer({ DATABASE_URL: `sqlite:${join(dir, 'calling.db')}`, AUTH_TOKENS: `app:client:${CLIENT},ops:admin:admin-secret-0123456789` })
      const admin = async (path: string, body: unknown) => {
        const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer admin-secret-0123456789' }, body: JSON.stringify(body) })
        assert.equal(res.status, 200, await res.clone().text())
        return await res.json()
      }
      const provider = await admin('/api/providers', { name: 'portal-a', base_url: portal.url })
      const pool = await admin('/api/pools', { name: 'spending', category: 'public-spending' })
      assert.equal(pool.pool_id, 1)
      await admin(`/api/pools/${pool.pool_id as number}/members`, { provider_id: provider.provider_id })
      env = { ...process.env, SOURCEPOOL_TOKEN: CLIENT }
      assert.equal((await http('GET', `${server.url}/api/pools/1/proxy/contratos?codigoOrgao=26000`)).status, 401, 'the examples need their token')
    })
    after(async () => {
      await server?.stop()
      await portal?.close()
    })

    it('with curl', async () => {
      const example = code('sh')
      const command = example.split('\n').filter((line) => !line.startsWith('#')).join('\n').replaceAll('127.0.0.1:8000', new URL(server.url).host)
      const { stdout } = await run('bash', ['-c', command], { env })
      const lines = stdout.split('\n').map((line) => line.trim())
      for (const line of shown(example)) assert.ok(lines.includes(line), `'${line}' not in\n${stdout}`)
      assert.equal(shown(example).length, 3)
    })

    it('with JavaScript fetch', async () => {
      const example = code('js')
      const lines = await runExample(process.execPath, 'call.mjs', example)
      assert.deepEqual(shown(example), ['200 portal-a { contratos: [ \'c-1\', \'c-2\' ] }'])
      for (const line of shown(example)) assert.ok(lines.includes(line), `'${line}' not in ${JSON.stringify(lines)}`)
    })

    const python = process.env.PYTHON ?? 'python3'
    const noRequests = (() => {
      try {
        execFileSync(python, ['-c', 'import requests'], { stdio: 'ignore' })
        return false
      } catch {
        return `${python} with the requests package is needed to run the Python example (pip install requests)`
      }
    })()
    it('with Python requests', { skip: noRequests }, async () => {
      const example = code('python')
      const lines = await runExample(python, 'call.py', example)
      assert.deepEqual(shown(example), ["200 portal-a {'contratos': ['c-1', 'c-2']}"])
      for (const line of shown(example)) assert.ok(lines.includes(line), `'${line}' not in ${JSON.stringify(lines)}`)
    })
  })

  it('links only to files of this repository that exist', () => {
    for (const file of ['README.md', ...['api', 'decisions', 'operations', 'performance', 'architecture', 'deployment'].map((name) => `docs/${name}.md`)]) {
      const text = readFileSync(join(ROOT, file), 'utf8')
      assert.ok(!text.includes('../shared'), `${file} points outside the repository`)
      for (const [, target] of text.matchAll(/\]\(([^)#]+)(#[^)]*)?\)/g)) {
        if (/^https?:/.test(target as string)) continue
        const base = file.startsWith('docs/') ? join(ROOT, 'docs') : ROOT
        assert.ok(existsSync(join(base, target as string)), `${file} links to ${target} which does not exist`)
      }
    }
  })
})
