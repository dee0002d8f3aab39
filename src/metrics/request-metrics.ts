/**
 * Every answer counted and timed per route: the route's URL is attached to its own
 * onResponse hook as the route is added (routes registered before this plugin are not
 * counted); requests that match no route count as `unmatched`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { addRouteHook } from '../http/route-hooks.js'
import type { Metrics } from './metrics.js'

async function requestMetricsPlugin (app: FastifyInstance, { metrics }: { metrics: Metrics }): Promise<void> {
  app.addHook('onRoute', (route) => {
    const url = route.url
    addRouteHook(route, 'onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      metrics.observeRequest(request.method, url, reply.statusCode, reply.elapsedTime / 1000)
      done()
    })
  })
  // Requests that match no route.
  app.addHook('onResponse', (request, reply, done) => {
    if (request.is404) metrics.observeRequest(request.method, 'unmatched', reply.statusCode, reply.elapsedTime / 1000)
    done()
  })
}

export const requestMetrics = fp(requestMetricsPlugin, { name: 'sourcepool-request-metrics' })
