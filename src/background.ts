/**
 * What runs between requests, started and stopped in one place: the housekeeping
 * timer (expired rows purged every minute), the runtime's flush loop and the active
 * health checks. At shutdown the event streams end before the server waits for its
 * connections (preClose); then the checks under way and the proxy's connections end,
 * and the runtime writes down what is left (onClose).
 */
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { HealthChecker } from './checks/health-checker.js'
import type { PoolRuntime } from './runtime/pool-runtime.js'

/** How often background housekeeping (purging expired rows) runs. */
const HOUSEKEEPING_INTERVAL_MS = 60_000

declare module 'fastify' {
  interface FastifyInstance {
    /** Runs every background housekeeping job once, now (the timer does it every minute). */
    runHousekeeping(): Promise<void>
  }
}

export interface BackgroundOptions {
  housekeeping: ReadonlyArray<() => Promise<void>>
  runtime: PoolRuntime
  healthChecks: HealthChecker
  /** false: health checks run only when `checkNow()` is called (tests on a test clock). */
  healthCheckTimer: boolean
  proxy: { close(): Promise<void> }
  hub: { close(): Promise<void> }
}

async function backgroundPlugin (app: FastifyInstance, { housekeeping, runtime, healthChecks, healthCheckTimer, proxy, hub }: BackgroundOptions): Promise<void> {
  app.decorate('runHousekeeping', async () => {
    for (const job of housekeeping) {
      try {
        await job()
      } catch (error) {
        app.log.warn({ err: error }, 'housekeeping job failed')
      }
    }
  })
  // runHousekeeping logs each job's failure itself and never rejects.
  const housekeepingTimer = setInterval(() => { app.runHousekeeping().catch(() => {}) }, HOUSEKEEPING_INTERVAL_MS)
  housekeepingTimer.unref()
  runtime.start()
  if (healthCheckTimer) healthChecks.start()

  // Streams end before the server waits for its connections to close.
  app.addHook('preClose', async () => { await hub.close() })
  app.addHook('onClose', async () => {
    clearInterval(housekeepingTimer)
    await healthChecks.close()
    await proxy.close()
    await runtime.close()
  })
}

/** Starts the background jobs now and stops them with the app. */
export const background = fp(backgroundPlugin, { name: 'sourcepool-background' })
