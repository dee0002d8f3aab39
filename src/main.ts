/**
 * The server entry: reads the configuration, binds the port, builds the service
 * (opening and migrating the database), applies CONFIG_FILE (a declared state) when
 * set, then serves, and closes cleanly on SIGTERM/SIGINT (SHUTDOWN_TIMEOUT_MS). The
 * port comes first (serving-port.ts) so that a start that cannot serve has written
 * nothing; until it serves, requests on the port wait. A bad setting is one line
 * on stderr and exit code 2; a CONFIG_FILE that does not check out is one line per
 * problem and exit code 2, before the database is even opened. With WORKERS above 1
 * this process is the cluster primary (workers.ts) and its workers run the serving
 * path below; the service itself is imported only where it serves, so the primary
 * stays small. Production runs it compiled (`node dist/main.js`, what `npm start` runs).
 */
import cluster from 'node:cluster'
import { ConfigError, loadConfig, type Config } from './config.js'
import type { FastifyInstance } from 'fastify'
import type { Desired } from './declared/declared.rules.js'
import { ConflictError } from './errors.js'
import { runPrimary, untilAllReady, untilFirstReady, workerStart } from './workers.js'

/** The actor of the audit records CONFIG_FILE writes. */
const CONFIG_ACTOR = { name: 'config', requestId: 'startup' }

async function readConfigFile (path: string): Promise<Desired> {
  const { DeclaredFileError, formatProblem, readDeclaredFile } = await import('./declared/declared-file.js')
  try {
    return (await readDeclaredFile(path, process.env)).desired
  } catch (error) {
    if (error instanceof DeclaredFileError) {
      process.stderr.write(`sourcepool: CONFIG_FILE does not check out, nothing was applied:\n${error.problems.map((p) => `  ${formatProblem(p)}\n`).join('')}`)
      process.exit(2)
    }
    throw error
  }
}

function readConfig (): Config {
  try {
    return loadConfig(process.env)
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`sourcepool: invalid configuration: ${error.message}\n`)
      process.exit(2)
    }
    throw error
  }
}

async function main (): Promise<void> {
  const config = readConfig()
  if (config.workers > 1 && cluster.isPrimary) {
    runPrimary(config)
    return
  }
  await serve(config)
}

/**
 * One serving process: the service on the port (alone, or as one of the primary's
 * workers). The port is bound before the database is opened, except by a worker
 * restarted while the others serve, which binds once it is ready.
 */
async function serve (config: Config): Promise<void> {
  const start = workerStart()
  // The others find CONFIG_FILE applied by the first worker (workers.ts).
  const file = start === null || start === 'first' ? config.configFile : null
  const declared = file === null ? undefined : await readConfigFile(file)
  const { servingPort } = await import('./serving-port.js')
  const port = servingPort(config)
  // PROXY_PORT: the data plane alone, on an address of its own (the admin API stays on PORT).
  const proxyPort = config.proxyPort === null
    ? undefined
    : servingPort(config, { listener: { host: config.proxyHost, port: config.proxyPort, hostSetting: 'PROXY_HOST', portSetting: 'PROXY_PORT' } })
  const loading = import('./app.js')
  loading.catch(() => {}) // awaited below; a failure to load is reported there
  if (start === 'after-first') await untilFirstReady()
  if (start !== 'restart') {
    await port.listen()
    await proxyPort?.listen()
  }
  const { buildApp } = await loading
  const app = await buildApp(config, { serverFactory: port.serverFactory, dataPlanePort: proxyPort })
  if (declared !== undefined) await applyConfigFile(app, declared, config.configFile)
  closeOnSignals(app, config)
  await app.ready()
  if (start === 'restart') {
    await port.listen()
    await proxyPort?.listen()
  }
  if (start !== null) await untilAllReady(start)
  // A worker closes the connections that reached it while it started (once answered): they reconnect to whichever worker is dealt them.
  port.serve({ dropIdle: start !== null })
  proxyPort?.serve({ dropIdle: start !== null })
  app.log.info(`Server listening at ${port.url()}`)
  if (proxyPort !== undefined) app.log.info(`Data plane (PROXY_PORT) listening at ${proxyPort.url()}`)
}

async function applyConfigFile (app: FastifyInstance, declared: Desired, file: string | null): Promise<void> {
  let applied
  try {
    applied = await app.declared.applyDesired(declared, CONFIG_ACTOR)
  } catch (error) {
    // Replicas starting together on a fresh database each create what the file
    // declares; the one that lost plans again, and finds it done.
    if (!(error instanceof ConflictError)) throw error
    applied = await app.declared.applyDesired(declared, CONFIG_ACTOR)
  }
  app.log.info({ file, ...applied.summary }, 'CONFIG_FILE applied')
}

/**
 * On SIGTERM/SIGINT: stop accepting connections, let in-flight requests finish (each
 * rotation commits before it answers), close the database, exit 0 — or exit 1 after
 * SHUTDOWN_TIMEOUT_MS.
 */
function closeOnSignals (app: FastifyInstance, config: Config): void {
  let closing = false
  const close = (signal: string) => {
    if (closing) return
    closing = true
    app.log.info({ signal }, 'shutting down')
    const timer = setTimeout(() => {
      app.log.error({ timeoutMs: config.shutdownTimeoutMs }, 'in-flight requests did not finish in time')
      process.exit(1)
    }, config.shutdownTimeoutMs)
    timer.unref()
    app.close().then(() => process.exit(0), (error: unknown) => {
      app.log.error({ err: error }, 'shutdown failed')
      process.exit(1)
    })
  }
  process.once('SIGTERM', () => close('SIGTERM'))
  process.once('SIGINT', () => close('SIGINT'))
}

main().catch((error: unknown) => {
  // One line, never a stack (the database's start-up errors say what is wrong).
  const message = error instanceof Error ? error.message : String(error)
  process.stderr.write(`sourcepool: failed to start: ${message.split('\n')[0]}\n`)
  process.exit(1)
})
