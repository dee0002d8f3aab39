/**
 * `sourcepool`, the command line: plan, apply and export a declared state file,
 * look at pools and act on them, serve, or start demo providers. It talks to a running service through
 * the typed client (SOURCEPOOL_URL, SOURCEPOOL_TOKEN, or --url/--token); `--json`
 * prints the service's answer as it came, for scripts. Exit codes: 0 done, 1 an
 * error (one line, or one per problem), 2 `plan` found changes (like
 * `terraform plan -detailed-exitcode`).
 */
import { Command, Option } from 'commander'
import { createSourcepoolClient, type paths } from '../client/index.js'
import { declaredCommands } from './declared.commands.js'
import { demoCommand } from './demo.command.js'
import { countdown, healthText, healthyText, paint, print, table } from './output.js'
import { call, CliError, poolId, providerId, serviceUrl, type Ask, type TokenSource } from './service.js'

interface Globals { url: string, token?: string, json?: boolean }

type Pool = paths['/api/pools/{pool_id}']['get']['responses'][200]['content']['application/json']

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
    // Named in a refusal (never shown): where the token sent came from.
    const source: TokenSource = token === undefined || token === '' ? undefined : cli.getOptionValueSource('token') === 'env' ? 'SOURCEPOOL_TOKEN' : '--token'
    return await call(url, source, async () => await request(createSourcepoolClient({ baseUrl: url, token })))
  }

  declaredCommands(cli, ask, globals)

  cli.command('pools').description('every pool: strategy, current provider, members by health')
    .action(async () => {
      const list = await ask(async (api) => await api.GET('/api/pools'))
      print(globals(), list, () => table(['ID', 'NAME', 'STRATEGY', 'ENABLED', 'CURRENT', 'HEALTHY'], (list.pools as Pool[]).map((p) => [
        String(p.pool_id), p.name, p.rotation_strategy, p.enabled ? 'yes' : paint('gray', 'no'), p.current_provider?.name ?? '-',
        healthyText(p.members)
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
          m.quota === null ? '-' : `${m.quota.used}/${m.quota.limit}${m.quota.unit === 'credits' ? ' credits' : ''}, resets ${countdown(m.quota.resets_at)}`,
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

  demoCommand(cli, ask, globals)

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
