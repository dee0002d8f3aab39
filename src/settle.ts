/**
 * Every API call but the proxy's sees what this process's proxied traffic did: what
 * the runtime has pending is written down before the handler runs (at most one flush,
 * usually nothing to do). Not on /healthz, the docs or /metrics, which answer at once
 * whatever the database does. Register it after the rate limit (a refused call waits
 * for nothing) and before the routes it applies to.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { addRouteHook } from './http/route-hooks.js'
import { NAMED_PROXY_ROUTE, PROXY_ROUTE } from './proxy/proxy.routes.js'
import type { PoolRuntime } from './runtime/pool-runtime.js'

async function settlePlugin (app: FastifyInstance, { runtime }: { runtime: PoolRuntime }): Promise<void> {
  const settle = (_request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void => {
    if (!runtime.unsettled()) {
      done()
      return
    }
    runtime.settle().then(() => { done() }, done)
  }
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/api/') && route.url !== PROXY_ROUTE && route.url !== NAMED_PROXY_ROUTE) addRouteHook(route, 'preHandler', settle)
  })
}

export const settleBeforeReading = fp(settlePlugin, { name: 'sourcepool-settle' })
