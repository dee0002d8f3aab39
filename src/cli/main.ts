/**
 * `sourcepool`, the command line: plan, apply and export a declared state file,
 * look at pools and act on them, or serve. It talks to a running service through
 * the typed client (SOURCEPOOL_URL, SOURCEPOOL_TOKEN, or --url/--token); `--json`
 * prints the service's answer as it came, for scripts. Exit codes: 0 done, 1 an
 * error (one line, or one per problem), 2 `plan` found changes (like
 * `terraform plan -detailed-exitcode`).
 */
import { createInterface } from 'node:readline/promises'
import { Command, Option } from 'commander'
import { createSourcepoolClient, type paths, type SourcepoolClient } from '../client/index.js'
import { DeclaredFileError, formatProblem, readDeclaredFile } from '../declared/declared-file.js'
import { issueText } from '../errors.js'
import type { PlanValue } from '../declared/declared.schemas.js'
import { maskText, maskUrlsIn } from '../rules/secrets.js'
import { countdown, healthText, paint, planText, table } from './output.js'

/** An error shown as its message, with an exit code. */
export class CliError extends Error {
  constructor (message: string, readonly exitCode = 1) { super(message) }
}

interface Globals { url: string, token?: string, json?: boolean }

/** What openapi-fetch answers. */
interface Answer<T> { data?: T, error?: unknown, response: Response }

/** The service's words for a refused request, one line (a 422 one line per field, without pydantic's `Value error, `). */
function refusal (status: number, error: unknown): string {
  const detail = (error as { detail?: unknown } | undefined)?.detail
  if (status === 422 && Array.isArray(detail)) {
    return ['the service refused the request:', ...detail.map((d: { loc?: unknown[], type?: string, msg?: string, ctx?: Record<string, unknown> }) =>
      `  ${(d.loc ?? []).join('.')}: ${issueText({ type: d.type ?? '', msg: d.msg ?? '', ctx: d.ctx })}`)].join('\n')
  }
  const text = typeof detail === 'string' ? detail : JSON.stringify(error)
  if (status === 401) return `the service wants a token (401): ${text}; set SOURCEPOOL_TOKEN or --token`
  if (status === 403) return `the token may not do this (403): ${text}`
  if (status === 409) return `${text} (409)`
  // The service's sentence says what is missing (`Pool 7 not found`); a bare `Not Found` is a path it lacks.
  if (status === 404 && typeof detail === 'string' && detail !== 'Not Found') return text
  return `the service answered ${status}: ${text}`
}

/**
 * The service's address as given (--url or SOURCEPOOL_URL, named by `source` in a refusal):
 * without a scheme it is http:// (`localhost:8000`, as curl takes it); a scheme other than
 * http:// or https://, or text that is no URL, is refused in a line (a password in it masked).
 */
export function serviceUrl (text: string, source = '--url'): string {
  const withScheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(text) ? text : `http://${text}`
  let url: URL
  try {
    url = new URL(withScheme)
  } catch {
    throw new CliError(`${source} ${maskText(text)} is not a URL: give the service's address, such as http://127.0.0.1:8000`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CliError(`${source} ${maskText(text)}: the service is reached over http:// or https://, not ${url.protocol}//`)
  }
  return withScheme
}

/** The answer's data, or a CliError saying why there is none (the service unreachable included). */
async function call<T> (url: string, request: () => Promise<Answer<T>>): Promise<T> {
  let answer: Answer<T>
  try {
    answer = await request()
  } catch (error) {
    const cause = (error as { cause?: { code?: string, message?: string } }).cause
    // An error's words may hold the address (`…a URL that includes credentials: http://u:pw@…`): its credentials masked.
    throw new CliError(maskUrlsIn(`cannot reach the service at ${url} (${cause?.code ?? cause?.message ?? (error as Error).message}); is it running? (SOURCEPOOL_URL or --url)`))
  }
  if (!answer.response.ok) throw new CliError(refusal(answer.response.status, answer.error))
  return answer.data as T
}

/** Prints `value` as JSON (--json) or as `text()` says. */
function print (globals: Globals, value: unknown, text: () => string): void {
  process.stdout.write(`${globals.json === true ? JSON.stringify(value, null, 2) : text()}\n`)
}

type Pool = paths['/api/pools/{pool_id}']['get']['responses'][200]['content']['application/json']

/** Sends a request through the client and answers its data (see `call`). */
type Ask = <T>(request: (api: SourcepoolClient) => Promise<Answer<T>>) => Promise<T>

/**
 * The id of a pool named by id or name. With `known`, a pool named by id is looked up
 * first, for the calls that do not say `Pool <id> not found` themselves: rotate and
 * failover answer an unknown pool as one without an available provider, history as
 * one without records (the contract's answers).
 */
async function poolId (ask: Ask, pool: string, known = false): Promise<number> {
  if (/^\d+$/.test(pool)) {
    const id = Number(pool)
    if (known) await ask(async (api) => await api.GET('/api/pools/{pool_id}', { params: { path: { pool_id: id } } }))
    return id
  }
  const list = await ask(async (api) => await api.GET('/api/pools', { params: { query: { fields: 'summary' } } }))
  const found = (list.pools as Array<{ pool_id: number, name: string }>).find((p) => p.name === pool)
  if (found === undefined) throw new CliError(`no pool named '${pool}'`)
  return found.pool_id
}

/** The id of a provider named by id or name. */
async function providerId (ask: Ask, provider: string): Promise<number> {
  if (/^\d+$/.test(provider)) return Number(provider)
  const list = await ask(async (api) => await api.GET('/api/providers'))
  const found = list.find((p) => p.name === provider)
  if (found === undefined) throw new CliError(`no provider named '${provider}'`)
  return found.provider_id
}

/** The checked state of a file, `--prune` added; problems one line each. */
async function stateOf (file: string, prune: boolean | undefined) {
  try {
    const { state } = await readDeclaredFile(file, process.env)
    return prune === true ? { ...state, prune: true } : state
  } catch (error) {
    if (error instanceof DeclaredFileError) throw new CliError(error.problems.map(formatProblem).join('\n'))
    throw error
  }
}

/** Asks a yes/no question on the terminal. */
async function confirm (question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr })
  try {
    return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim())
  } finally {
    rl.close()
  }
}

/** The program; `run` parses `argv` and sets process.exitCode. */
export function program (): Command {
  const cli = new Command('sourcepool')
    .description('Pools of interchangeable upstream data providers: plan and apply a file, look at pools, act on them')
    .addOption(new Option('--url <url>', 'the service').env('SOURCEPOOL_URL').default('http://127.0.0.1:8000'))
    .addOption(new Option('--token <secret>', 'a token (AUTH_TOKENS)').env('SOURCEPOOL_TOKEN'))
    .option('--json', 'print the service\'s answer as JSON')
    .showHelpAfterError()
  const globals = (): Globals => cli.opts<Globals>()
  const ask: Ask = async (request) => {
    const { token } = globals()
    const url = serviceUrl(globals().url, cli.getOptionValueSource('url') === 'env' ? 'SOURCEPOOL_URL' : '--url')
    return await call(url, async () => await request(createSourcepoolClient({ baseUrl: url, token })))
  }

  cli.command('plan').argument('<file>', 'a declared state (YAML or JSON)')
    .description('show what applying FILE would change; exit 0 without changes, 2 with')
    .option('--prune', 'also delete what FILE does not declare')
    .action(async (file: string, options: { prune?: boolean }) => {
      const state = await stateOf(file, options.prune)
      const plan = await ask(async (api) => await api.POST('/api/config/plan', { body: state })) as PlanValue
      print(globals(), plan, () => planText(plan))
      if (plan.changes.length > 0) process.exitCode = 2
    })

  cli.command('apply').argument('<file>', 'a declared state (YAML or JSON)')
    .description('make the service what FILE declares, in one transaction')
    .option('--prune', 'also delete what FILE does not declare')
    .option('-y, --yes', 'apply without asking')
    .action(async (file: string, options: { prune?: boolean, yes?: boolean }) => {
      const state = await stateOf(file, options.prune)
      const plan = await ask(async (api) => await api.POST('/api/config/plan', { body: state })) as PlanValue
      if (plan.changes.length === 0) {
        print(globals(), plan, () => planText(plan))
        return
      }
      if (options.yes !== true) {
        if (process.stdin.isTTY !== true) throw new CliError('refusing to apply without --yes: nobody is at a terminal to confirm')
        process.stderr.write(`${planText(plan)}\n`)
        if (!await confirm(`Apply ${plan.changes.length} change${plan.changes.length === 1 ? '' : 's'}?`)) throw new CliError('not applied')
      }
      // Exactly the changes shown: if the service moved meanwhile, nothing is applied (409).
      const applied = await ask(async (api) => await api.POST('/api/config/apply', { params: { query: { expect: plan.fingerprint } }, body: state })) as PlanValue
      print(globals(), applied, () => planText(applied))
    })

  cli.command('export').description('print the service\'s state as a file that applies back to no change (credentials as placeholders to fill from the environment)')
    .action(async () => {
      if (globals().json === true) {
        const state = await ask(async (api) => await api.GET('/api/config/export'))
        print(globals(), state, () => '')
        return
      }
      const text = await ask(async (api) => await api.GET('/api/config/export', { params: { query: { format: 'yaml' } }, parseAs: 'text' }))
      process.stdout.write(text as unknown as string)
    })

  cli.command('pools').description('every pool: strategy, current provider, members by health')
    .action(async () => {
      const list = await ask(async (api) => await api.GET('/api/pools'))
      print(globals(), list, () => table(['ID', 'NAME', 'STRATEGY', 'ENABLED', 'CURRENT', 'HEALTHY'], (list.pools as Pool[]).map((p) => [
        String(p.pool_id), p.name, p.rotation_strategy, p.enabled ? 'yes' : paint('gray', 'no'), p.current_provider?.name ?? '-',
        `${p.members.filter((m) => m.enabled && m.health === 'healthy').length}/${p.members.length}`
      ])))
    })

  cli.command('status').argument('<pool>', 'a pool, by name or id').description('a pool\'s members: health, cooldowns, quotas, latency, last check')
    .action(async (pool: string) => {
      const id = await poolId(ask, pool)
      const status = await ask(async (api) => await api.GET('/api/pools/{pool_id}', { params: { path: { pool_id: id } } })) as Pool
      print(globals(), status, () => [
        `${paint('bold', status.name)} (${status.rotation_strategy}${status.enabled ? '' : ', disabled'}): current ${status.current_provider?.name ?? '-'}, ${status.total_rotations} rotations`,
        table(['PROVIDER', 'PRIO', 'WEIGHT', 'HEALTH', 'COOLDOWN', 'QUOTA', 'LATENCY', 'SUCCESS', 'CHECK'], status.members.map((m) => [
          m.provider_name ?? String(m.provider_id),
          String(m.priority),
          String(m.weight),
          healthText(m.health, m.enabled),
          m.cooldown_until === null ? '-' : `${countdown(m.cooldown_until)} (${m.cooldown_reason ?? '?'})`,
          m.quota === null ? '-' : `${m.quota.used}/${m.quota.limit}, resets ${countdown(m.quota.resets_at)}`,
          m.latency_ms === null ? '-' : `${Math.round(m.latency_ms)} ms`,
          m.success_count + m.failure_count === 0 ? '-' : `${m.success_rate}%`,
          m.last_check === null ? '-' : m.last_check.ok ? paint('green', 'ok') : paint('red', m.last_check.status_code === null ? m.last_check.error ?? 'failed' : `HTTP ${m.last_check.status_code}`)
        ]))
      ].join('\n'))
    })

  cli.command('rotate').argument('<pool>', 'a pool, by name or id').description('rotate the pool to its next provider')
    .option('--reason <reason>', 'recorded in the history').option('--key <key>', 'the key of a consistent_hash pool')
    .action(async (pool: string, options: { reason?: string, key?: string }) => {
      const id = await poolId(ask, pool, true)
      const rotated = await ask(async (api) => await api.POST('/api/pools/{pool_id}/rotate', { params: { path: { pool_id: id } }, body: { reason: options.reason, key: options.key } }))
      print(globals(), rotated, () => rotated.message)
    })

  cli.command('failover').argument('<pool>', 'a pool, by name or id').argument('<provider>', 'the provider that failed, by name or id')
    .description('fail over from a provider that failed').option('--reason <reason>', 'recorded in the history')
    .action(async (pool: string, provider: string, options: { reason?: string }) => {
      const id = await poolId(ask, pool, true)
      const failed = await providerId(ask, provider)
      const result = await ask(async (api) => await api.POST('/api/pools/{pool_id}/failover', { params: { path: { pool_id: id } }, body: { failed_provider_id: failed, reason: options.reason } }))
      print(globals(), result, () => result.message)
    })

  cli.command('history').argument('<pool>', 'a pool, by name or id').description('who served the pool when, newest first')
    .option('--limit <n>', 'how many records', (value) => Number(value), 20)
    .action(async (pool: string, options: { limit: number }) => {
      const id = await poolId(ask, pool, true)
      const history = await ask(async (api) => await api.GET('/api/pools/{pool_id}/history', { params: { path: { pool_id: id }, query: { limit: options.limit } } }))
      print(globals(), history, () => table(['TIME', 'FROM', 'TO', 'REASON', 'NOTES'], history.history.map((h) => [
        h.timestamp, h.from_provider ?? '-', h.to_provider ?? '-', h.success ? h.reason : paint('red', h.reason), h.notes ?? ''
      ])))
    })

  cli.command('next').argument('<pool>', 'a pool, by name or id').description('which provider the next rotation would choose, and why')
    .action(async (pool: string) => {
      const id = await poolId(ask, pool)
      const next = await ask(async (api) => await api.GET('/api/pools/{pool_id}/next', { params: { path: { pool_id: id } } }))
      print(globals(), next, () => [next.explanation, table(['PROVIDER', 'ELIGIBLE', 'WHY NOT', 'UNTIL', 'HEALTH'], next.members.map((m) => [
        m.provider_name ?? String(m.provider_id), m.eligible ? paint('green', 'yes') : paint('red', 'no'), m.reason ?? '-', m.until === null ? '-' : countdown(m.until), healthText(m.health, m.reason !== 'disabled')
      ]))].join('\n'))
    })

  cli.command('serve').description('start the service (as npm start does; configured by the environment)')
    .action(async () => { await import('../main.js') })

  return cli
}

/** Runs the CLI with `argv` (process.argv by default). */
export async function run (argv = process.argv): Promise<void> {
  try {
    await program().parseAsync(argv)
  } catch (error) {
    if (!(error instanceof CliError)) throw error
    process.stderr.write(`sourcepool: ${error.message}\n`)
    process.exitCode = error.exitCode
  }
}
