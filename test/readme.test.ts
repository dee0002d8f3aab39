/**
 * The walkthroughs, run as written, so they can never drift from what the service
 * does: the README's five minutes with a file (the demo providers and the service
 * started with the example file, then every `npx sourcepool` command, each table line
 * shown after `# →` found in its output), its calls through a pool (curl, JavaScript,
 * Python, with a token and without, and the failover), and the curl examples of
 * docs/api.md — the quick start, the cache and the providers' signals (every command
 * through bash and curl against a fresh server, every answer shown the answer given:
 * JSON field by field, other output line by line, `…` standing for any value or text).
 * The demo providers' fixed ports (127.0.0.1:9101–9103) are the ones a test's demo got
 * on port 0; the signals' provider at http://127.0.0.1:9100 is a test upstream. And no
 * document links outside the repository or to a file that does not exist.
 */
import assert from 'node:assert/strict'
import { execFile, execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { after, before, describe, it } from 'node:test'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { startDemo, type Demo } from '../src/demo/demo.js'
import { npxSourcepool, type NpxProcess } from './npx-process.js'
import { http, runSourcepool, startServer, type ServerProcess } from './server-process.js'
import { json, upstream } from './upstreams.js'

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

/** The commands of the first `sh` block of docs/api.md's section `title` (see `steps`). */
function curlSteps (title: string): Step[] {
  const block = blocks(API, title)[0]
  assert.ok(block !== undefined, `docs/api.md's '${title}' has an sh block`)
  return blockSteps(block)
}

/** The commands of an `sh` block, each with the answer shown after it (`# → …` and its `#   ` continuations). */
function blockSteps (block: string): Step[] {
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

/** `shown` as a whole-text pattern, each `…` in it standing for any text. */
const pattern = (shown: string) => new RegExp(`^${shown.split('…').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 's')

/** Whether `actual` is `expected` with every `"…"` standing for any value, and `…` within a string for any text. */
function matches (actual: unknown, expected: unknown, path = '$'): void {
  if (expected === '…') return
  if (typeof expected === 'string' && expected.includes('…')) {
    assert.ok(typeof actual === 'string' && pattern(expected).test(actual), `${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`)
    return
  }
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

/**
 * Whether a command's output is the answer shown: JSON when the output is JSON
 * (matches), else its non-blank lines, each trimmed, one for one with the lines shown.
 */
function answered (stdout: string, shown: string[], command: string): void {
  let json: unknown
  try {
    json = JSON.parse(stdout)
    JSON.parse(shown.join(''))
  } catch {
    const lines = stdout.split('\n').map((line) => line.trim()).filter((line) => line !== '')
    assert.equal(lines.length, shown.length, `${command}: ${shown.length} lines shown, got\n${stdout}`)
    shown.forEach((line, i) => assert.match(lines[i] as string, pattern(line.trim()), `${command}: line ${i + 1} is not '${line.trim()}' in\n${stdout}`))
    return
  }
  matches(json, JSON.parse(shown.join('')), command)
}

/** Where the signals examples of docs/api.md put their provider; a test upstream's URL stands in for it. */
const DOC_PROVIDER = 'http://127.0.0.1:9100'

/** Where the docs put the demo providers (`npx sourcepool demo`): demo-a, demo-b, demo-c. */
const DEMO_PORTS = ['127.0.0.1:9101', '127.0.0.1:9102', '127.0.0.1:9103']

/** What a document's addresses stand for here: `[as shown, as run]` pairs. */
type Swaps = ReadonlyArray<readonly [string, string]>

/** The demo's addresses as shown → as a test's demo got them. */
const demoSwaps = (urls: readonly string[]): Swaps => urls.map((url, i) => [`http://${DEMO_PORTS[i] as string}`, url] as const)

/** `text` with each swap's first member replaced by its second (`back`: the other way). */
const swapped = (text: string, swaps: Swaps, back = false) => swaps.reduce((t, [shown, run]) => back ? t.replaceAll(run, shown) : t.replaceAll(shown, run), text)

/** examples/sourcepool.yaml with the demo's addresses as a test's demo got them, written into `dir`. */
function exampleFile (dir: string, swaps: Swaps): string {
  const path = join(dir, `sourcepool-${Math.random().toString(36).slice(2)}.yaml`)
  writeFileSync(path, swapped(readFileSync(join(ROOT, 'examples/sourcepool.yaml'), 'utf8'), swaps))
  return path
}

/**
 * The provider of the Provider signals examples, as their text describes
 * it: the key `revoked-key` gets 401; `/quote?symbol=…` answers after 200 ms with a
 * price and the number of requests it has had for that path and query; `/price` a
 * price; `/last-call` a price with no requests left for 30 s; `/busy` a 429
 * (Retry-After: 1) the first time, then a price.
 */
function docProvider (): (req: IncomingMessage, res: ServerResponse) => void {
  const calls = new Map<string, number>()
  return (req, res) => {
    if (req.headers['x-api-key'] === 'revoked-key') return json(401, { error: 'invalid api key' })(req, res)
    const url = new URL(req.url ?? '/', DOC_PROVIDER)
    const n = (calls.get(url.pathname + url.search) ?? 0) + 1
    calls.set(url.pathname + url.search, n)
    const price = json(200, { price: 101.5 })
    if (url.pathname === '/quote') setTimeout(() => json(200, { symbol: url.searchParams.get('symbol'), price: 101.5, calls: n })(req, res), 200)
    else if (url.pathname === '/price') price(req, res)
    else if (url.pathname === '/last-call') json(200, { price: 101.5 }, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '30' })(req, res)
    else if (url.pathname === '/busy') (n === 1 ? json(429, { error: 'slow down' }, { 'retry-after': '1' }) : price)(req, res)
    else json(404, { error: 'no such thing' })(req, res)
  }
}

/**
 * Runs `steps` in order through bash (pipefail) against `server`, the documents' addresses
 * swapped for the test's (`swaps`; the service's own always), with `env` added, and checks
 * each answer shown. A step without one must succeed and, when it answers JSON, not with an error.
 */
async function runSteps (steps: Step[], server: ServerProcess, swaps: Swaps = [], env: NodeJS.ProcessEnv = {}): Promise<void> {
  const host = new URL(server.url).host
  const all: Swaps = [...swaps, ['localhost:8000', host], ['127.0.0.1:8000', host]]
  for (const step of steps) {
    assert.match(step.command, /^(curl |for .*curl |sleep \d+$|npx sourcepool )/, 'the examples are curl and sourcepool commands')
    const { stdout: raw } = await run('bash', ['-o', 'pipefail', '-c', swapped(step.command, all)], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', SOURCEPOOL_URL: server.url, ...env } })
    const stdout = swapped(raw, swaps, true)
    if (step.answer.length > 0) {
      answered(stdout, step.answer, step.command)
      continue
    }
    let answer: unknown
    try { answer = JSON.parse(stdout) } catch { continue }
    assert.ok(answer !== null && typeof answer === 'object' && !('detail' in answer), `${step.command} → ${stdout}`)
  }
}

/** `npx sourcepool demo` (its block's command) on any free ports; its providers' URLs once they listen. */
async function npxDemo (command: string): Promise<{ demo: NpxProcess, urls: string[] }> {
  assert.match(command, /^npx sourcepool demo$/m, 'the demo is started as npx sourcepool demo')
  const demo = npxSourcepool(['demo', '--port', '0'])
  await demo.waitFor(/^demo-c +http/m)
  const urls = [...demo.output().matchAll(/^demo-[abc] +(http:\/\/127\.0\.0\.1:\d+)/gm)].map((m) => m[1] as string)
  assert.equal(urls.length, 3, demo.output())
  return { demo, urls }
}

describe('README', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sourcepool-readme-'))
  after(() => { rmSync(dir, { recursive: true, force: true }) })

  it('five minutes with a file runs as written and shows what it says', async () => {
    const [demoBlock, start, look, change] = blocks(README, '## Five minutes with a file')
    assert.match(start ?? '', /^CONFIG_FILE=examples\/sourcepool\.yaml DATABASE_URL=sqlite:\.\/data\/demo\.db npm start$/m)
    const { demo, urls } = await npxDemo((demoBlock ?? '').replace(/^npm install && /, ''))
    const file = exampleFile(dir, demoSwaps(urls))
    let server: ServerProcess | undefined
    try {
      server = await startServer({ DATABASE_URL: `sqlite:${join(dir, 'walkthrough.db')}`, CONFIG_FILE: file })
      const env = { ...process.env, SOURCEPOOL_URL: server.url, NO_COLOR: '1' }
      const squeeze = (line: string) => line.trim().replace(/\s+/g, ' ')
      for (const block of [look, change]) {
        const steps: Array<{ command: string, shown: string[] }> = []
        for (const line of (block ?? '').split('\n')) {
          if (line.startsWith('# → ')) steps.at(-1)?.shown.push(line.slice('# → '.length))
          else if (line.startsWith('npx sourcepool')) steps.push({ command: line.replace(/\s+#.*$/, '').replace('> running.yaml', `> ${join(dir, 'running.yaml')}`).replace('examples/sourcepool.yaml', file), shown: [] })
        }
        assert.ok(steps.length >= 3, block)
        for (const step of steps) {
          const { stdout } = await run('bash', ['-c', step.command], { cwd: ROOT, env })
          const lines = stdout.split('\n').map(squeeze)
          for (const shown of step.shown) assert.ok(lines.includes(squeeze(shown)), `${step.command}: '${shown}' not in\n${stdout}`)
        }
      }
      assert.match(readFileSync(join(dir, 'running.yaml'), 'utf8'), /name: prices/)
      // The real providers' file (its calls need internet) plans cleanly all the same.
      const planned = await runSourcepool(ROOT, ['plan', 'examples/public-apis.yaml'], { SOURCEPOOL_URL: server.url })
      assert.equal(planned.code, 2, planned.stderr)
      assert.match(planned.stdout, /^\+ pool binance$/m)
    } finally {
      await server?.stop()
      await demo.stop()
    }
  })

  it('quick start runs as written and answers what it shows', async () => {
    const steps = curlSteps('## Quick start with curl')
    assert.ok(steps.filter((s) => s.answer.length > 0).length >= 8, 'the quick start shows its answers')
    const server = await startServer({ DATABASE_URL: `sqlite:${join(dir, 'pools.db')}` })
    try {
      await runSteps(steps, server)
    } finally {
      await server.stop()
    }
  })

  it("docs/api.md's 'Cache' examples run as written against the demo and answer what they show", async () => {
    const steps = curlSteps('## Cache')
    assert.ok(steps.filter((s) => s.answer.length > 0).length >= 12, 'the section shows its answers')
    assert.ok(steps.some((s) => s.command.includes(`http://${DEMO_PORTS[0] as string}`)), 'the examples\' provider is the demo\'s demo-a')
    const demo = await startDemo({ port: 0, count: 1 })
    const server = await startServer({ DATABASE_URL: `sqlite:${join(dir, 'cache.db')}` })
    try {
      await runSteps(steps, server, demoSwaps(demo.providers.map((p) => p.url)))
    } finally {
      await server.stop()
      await demo.stop()
    }
  })

  it("docs/api.md's 'Provider signals' examples run as written and answer what they show", async () => {
    const steps = curlSteps('## Provider signals')
    assert.ok(steps.filter((s) => s.answer.length > 0).length >= 12, 'the section shows its answers')
    assert.ok(steps.some((s) => s.command.includes(DOC_PROVIDER)), `the examples' provider is at ${DOC_PROVIDER}`)
    const provider = await upstream(docProvider())
    const server = await startServer({ DATABASE_URL: `sqlite:${join(dir, 'signals.db')}` })
    try {
      await runSteps(steps, server, [[DOC_PROVIDER, provider.url]])
    } finally {
      await server.stop()
      await provider.close()
    }
  })

  describe('calling a pool from your application', () => {
    const section = README.slice(README.indexOf('## Calling a pool from your application'), README.indexOf('\n## ', README.indexOf('## Calling a pool from your application') + 3))
    const code = (language: string, nth = 0) => {
      const found = [...section.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))][nth]?.[1]
      assert.ok(found !== undefined, `a ${language} example`)
      return found
    }
    /** The lines an example says it prints (`# → …` or `// → …`). */
    const shown = (example: string) => [...example.matchAll(/^(?:#|\/\/) → (.*)$/gm)].map((m) => (m[1] as string).trim())
    /** Whether each line shown is among `lines` (`…` standing for any text). */
    const printed = (example: string, lines: string[]) => {
      for (const line of shown(example)) assert.ok(lines.some((l) => pattern(line).test(l)), `'${line}' not in ${JSON.stringify(lines)}`)
    }
    const CLIENT = 'client-secret-0123456789'
    let demo: Demo
    /** The walkthrough's service with tokens (the examples run with SOURCEPOOL_TOKEN), and without (they run without it). */
    let secured: ServerProcess
    let open: ServerProcess
    /** Each example is run against both, the token given to the secured one only. */
    const services = () => [[secured, { SOURCEPOOL_TOKEN: CLIENT }], [open, {}]] as const
    const envFor = (extra: Record<string, string>) => {
      const env = { ...process.env, ...extra }
      if (extra.SOURCEPOOL_TOKEN === undefined) delete env.SOURCEPOOL_TOKEN
      return env
    }
    /** Runs `program` with `example`, written to a file, where the service of the example is `server`. */
    const runExample = async (program: string, file: string, example: string, server: ServerProcess, env: Record<string, string>) => {
      const path = join(dir, file)
      writeFileSync(path, example.replaceAll('127.0.0.1:8000', new URL(server.url).host))
      const { stdout } = await run(program, [path], { env: envFor(env) })
      return stdout.split('\n').map((line) => line.trim())
    }

    before(async () => {
      demo = await startDemo({ port: 0 })
      const file = exampleFile(dir, demoSwaps(demo.providers.map((p) => p.url)))
      ;[secured, open] = await Promise.all([
        startServer({ DATABASE_URL: `sqlite:${join(dir, 'calling.db')}`, CONFIG_FILE: file, AUTH_TOKENS: `app:client:${CLIENT}` }),
        startServer({ DATABASE_URL: `sqlite:${join(dir, 'calling-open.db')}`, CONFIG_FILE: file })
      ])
      assert.equal((await http('GET', `${secured.url}/api/pools/1/proxy/v1/prices?symbol=BTC`)).status, 401, 'the examples need their token')
    })
    after(async () => {
      await secured?.stop()
      await open?.stop()
      await demo?.stop()
    })

    it('with curl', async () => {
      const example = code('sh')
      assert.equal(shown(example).length, 3)
      for (const [server, env] of services()) {
        const command = example.split('\n').filter((line) => !line.startsWith('#')).join('\n').replaceAll('127.0.0.1:8000', new URL(server.url).host)
        const { stdout } = await run('bash', ['-c', command], { env: envFor(env) })
        printed(example, stdout.split('\n').map((line) => line.trim()))
      }
    })

    it('with JavaScript fetch', async () => {
      const example = code('js')
      assert.equal(shown(example).length, 1)
      for (const [server, env] of services()) printed(example, await runExample(process.execPath, 'call.mjs', example, server, env))
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
    it('with Python requests, with a token and without one', { skip: noRequests }, async () => {
      const example = code('python')
      assert.equal(shown(example).length, 1)
      for (const [server, env] of services()) printed(example, await runExample(python, 'call.py', example, server, env))
    })

    it('fails over from a demo provider made to fail, as shown', async () => {
      const steps = blockSteps(code('sh', 1))
      assert.ok(steps.filter((s) => s.answer.length > 0).length >= 4, 'the failover shows its answers')
      await runSteps(steps, secured, demoSwaps(demo.providers.map((p) => p.url)), { SOURCEPOOL_TOKEN: CLIENT })
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
