/**
 * `GET /metrics`: the Prometheus text format.
 */
import type { FastifyPluginAsync } from 'fastify'
import type { Registry } from 'prom-client'

export const metricsRoutes: FastifyPluginAsync<{ registry: Registry }> = async (app, { registry }) => {
  app.get('/metrics', {
    schema: { tags: ['metrics'], summary: 'Prometheus metrics', produces: ['text/plain'] },
    config: { failure: 'Failed to collect metrics' }
  }, async (_request, reply) => {
    const text = await registry.metrics()
    return await reply.type(registry.contentType).send(text)
  })
}
