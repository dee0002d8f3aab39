/**
 * `sourcepool demo`: starts the demo providers (src/demo/) and keeps them until
 * SIGINT or SIGTERM, saying where they are and how to make one misbehave; with
 * `--pool NAME` it also declares them and a pool over them on the running service
 * (as `apply` would), so a first try needs neither internet nor keys.
 */
import { InvalidArgumentError, type Command } from 'commander'
import { DEMO_PORT, startDemo, type Demo, type DemoProvider } from '../demo/demo.js'
import { planAndApply, type DeclaredBody } from './declared.commands.js'
import { print, table } from './output.js'
import { CliError, poolId, serviceUrl, type Ask } from './service.js'

/** A whole number within `min`–`max`, for commander. */
const whole = (min: number, max: number) => (text: string) => {
  const n = Number(text)
  if (!Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(`a whole number, ${min}–${max}`)
  return n
}

/** The demo providers and a pool over them as a declared state; each checked every 10 s on /health. */
export function demoState (providers: readonly DemoProvider[], pool: string): DeclaredBody {
  return {
    providers: providers.map((p) => ({ name: p.name, category: 'market-data', base_url: p.url, health_check: { path: '/health', interval_s: 10 } })),
    pools: [{ name: pool, category: 'market-data', members: providers.map((p) => ({ provider: p.name })) }]
  }
}

/** What the demo prints once its providers listen: where they are, how to ask and break one, how to pool them. */
function started (providers: readonly DemoProvider[], port: number, pool: string | undefined): string {
  const [first, second = first] = providers as [DemoProvider, ...DemoProvider[]]
  const lines = [
    `${providers.length} demo provider${providers.length === 1 ? '' : 's'} of market data (Ctrl-C stops them):`,
    table(['NAME', 'URL', 'ANSWERS IN'], providers.map((p) => [p.name, p.url, `${p.latencyMs} ms`])),
    '',
    `Ask one:    curl -s '${first.url}/v1/prices?symbol=BTC'      (ETH and SOL too)`,
    `Break one:  curl -s -X POST ${second.url}/control -d '{"fail":true}'`,
    '            or {"slow_ms":3000}, {"rate_limited":true}; {} mends it'
  ]
  if (pool !== undefined) return lines.join('\n')
  const file = port === DEMO_PORT && providers.length === 3 ? 'examples/sourcepool.yaml declares these; or add ' : 'add '
  return [...lines, `Pool them:  ${file}--pool NAME to declare them and a pool over them on the running service`].join('\n')
}

/** Waits for SIGINT or SIGTERM. */
async function stopSignal (): Promise<NodeJS.Signals> {
  return await new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
      resolve(signal)
    }
    process.on('SIGINT', stop)
    process.on('SIGTERM', stop)
  })
}

/** Adds `demo` to `cli`. */
export function demoCommand (cli: Command, ask: Ask, globals: () => { json?: boolean, url: string, token?: string }): void {
  cli.command('demo').description('start local demo providers of market data (no internet needed), until Ctrl-C')
    .option('--port <port>', `the first provider's port, the others on the next ones; 0 for any free ports (default ${DEMO_PORT})`, whole(0, 65_535), DEMO_PORT)
    .option('--providers <n>', 'how many providers (default 3)', whole(1, 10), 3)
    .option('--pool <name>', 'also declare them and a pool NAME over them on the service (SOURCEPOOL_URL)')
    .action(async (options: { port: number, providers: number, pool?: string }) => {
      let demo: Demo
      try {
        demo = await startDemo({ port: options.port, count: options.providers })
      } catch (error) {
        throw new CliError((error as Error).message)
      }
      const stopped = stopSignal()
      try {
        const pool = options.pool === undefined ? undefined : await declarePool(ask, demo.providers, options.pool, globals())
        print(globals(), { providers: demo.providers, pool: pool ?? null }, () => [started(demo.providers, options.port, options.pool), pool?.text].filter((t) => t !== undefined).join('\n'))
      } catch (error) {
        await demo.stop()
        throw error
      }
      await stopped
      await demo.stop()
    })
}

/** Declares the providers and pool `name` on the service; its id, and how to call it (the token named, never shown). */
async function declarePool (ask: Ask, providers: readonly DemoProvider[], name: string, service: { url: string, token?: string }) {
  await planAndApply(ask, demoState(providers, name))
  const id = await poolId(ask, name)
  const url = `${serviceUrl(service.url).replace(/\/+$/, '')}/api/pools/${id}/proxy/v1/prices?symbol=BTC`
  const bearer = service.token === undefined || service.token === '' ? '' : ' -H "Authorization: Bearer $SOURCEPOOL_TOKEN"'
  return { id, name, url, text: `Pool '${name}' (id ${id}) serves them: curl -s '${url}'${bearer}` }
}
