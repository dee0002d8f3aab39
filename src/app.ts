/**
 * buildApp: the one Fastify instance, used by `main.ts` and by every test, with
 * all options, validation, the error handler, OpenAPI and the routes in one place.
 */
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type RouteOptions } from 'fastify'
import { createChangeFeed } from './changes.js'
import { trustProxyOption, type Config } from './config.js'
import { createDb, type DbHandle } from './db/create-db.js'
import { healthzRoutes } from './healthz.routes.js'
import { sessionRoutes } from './auth/session.routes.js'
import { uiRoutes } from './ui/ui.routes.js'
import { connectionOptions, guardConnections, requestLogFields } from './http/connections.js'
import { handleError } from './http/error-handler.js'
import { documentRoute, validOpenApi } from './http/openapi.js'
import { ServiceLogController } from './http/log-controller.js'
import { registerJsonParser } from './http/json-parser.js'
import { registerCors } from './http/cors.js'
import { validatorCompiler } from './http/validation.js'
import { activityRoutes } from './pools/activity.routes.js'
import { createActivityService } from './pools/activity.service.js'
import { memberRoutes } from './pools/member.routes.js'
import { createMemberService } from './pools/member.service.js'
import { poolRoutes } from './pools/pool.routes.js'
import { createPoolService } from './pools/pool.service.js'
import { createHistoryRetention } from './pools/history-retention.js'
import { providerRoutes } from './providers/provider.routes.js'
import { createProviderService } from './providers/provider.service.js'
import { rotationRoutes } from './rotation/rotation.routes.js'
import { createRotationService } from './rotation/rotation.service.js'
import { v1Routes } from './v1/v1.routes.js'
import { chunkRoutes } from './chunks/chunk.routes.js'
import { createChunkSearch } from './chunks/chunk-search.js'
import { createChunkService } from './chunks/chunk.service.js'
import { PROXY_ROUTE, proxyRoutes } from './proxy/proxy.routes.js'
import { createProxyService } from './proxy/proxy.service.js'
import { createPoolRuntime, type PoolRuntime } from './runtime/pool-runtime.js'
import { createHealthChecker, type HealthChecker } from './checks/health-checker.js'
import { refusalRoutes } from './providers/refusal.routes.js'
import { createRefusalService } from './providers/refusal.service.js'
import rateLimit from '@fastify/rate-limit'
import { auditRoutes } from './audit/audit.routes.js'
import { declaredRoutes } from './declared/declared.routes.js'
import { createDeclaredService, type DeclaredService } from './declared/declared.service.js'
import { createEventHub } from './events/event-hub.js'
import { eventRoutes } from './events/events.routes.js'
import { createAuditService } from './audit/audit.service.js'
import { auth } from './auth/auth.plugin.js'
import { createMetrics } from './metrics/metrics.js'
import { metricsRoutes } from './metrics/metrics.routes.js'
import { listCooldowns } from './pools/member.repository.js'
import { healthAt } from './rules/health.js'
import { outcomeRoutes } from './rotation/outcome.routes.js'
import { createOutcomeService } from './rotation/outcome.service.js'
import { explainRoutes } from './rotation/explain.routes.js'
import { createExplainService } from './rotation/explain.service.js'

export interface AppDeps {
  /** An open database; by default `config.databaseUrl` is opened (and closed with the app). */
  database?: DbHandle
  now?: () => Date
  random?: () => number
  /** Pino options (a `stream` included) or false; by default JSON logs at `config.logLevel`. */
  logger?: boolean | { level: string, stream?: { write: (line: string) => void } }
  /** false: health checks run only when `app.healthChecks.checkNow()` is called (tests on a test clock). */
  healthCheckTimer?: boolean
}

const REQUEST_ID = /^[\w.:-]{1,128}$/

/** How often background housekeeping (purging expired rows) runs. */
const HOUSEKEEPING_INTERVAL_MS = 60_000

declare module 'fastify' {
  interface FastifyInstance {
    /** Runs every background housekeeping job once, now (the timer does it every minute). */
    runHousekeeping(): Promise<void>
    /** The proxy's per-process pool runtime (flush it to write down proxied traffic now). */
    runtime: PoolRuntime
    /** The active health checker (`checkNow` runs what is due and waits for it to be written down). */
    healthChecks: HealthChecker
    /** Pools as code: plan, apply and export a declared state (CONFIG_FILE is applied through it at start). */
    declared: DeclaredService
  }
}

/** Adds `hook` to the route's own hooks of that name, after those it has. */
function addRouteHook (route: RouteOptions, name: 'onResponse' | 'preHandler', hook: unknown): void {
  const existing = route[name] === undefined ? [] : ([] as unknown[]).concat(route[name])
  ;(route as unknown as Record<string, unknown>)[name] = [...existing, hook]
}

/** Builds the service; the caller listens (main.ts) or injects (tests). */
export async function buildApp (config: Config, deps: AppDeps = {}): Promise<FastifyInstance> {
  const database = deps.database ?? await createDb(config.databaseUrl)
  const now = deps.now ?? (() => new Date())

  const logger = deps.logger ?? { level: config.logLevel }
  const app = Fastify({
    logger: logger === false || logger === true ? logger : { ...logger, serializers: { req: requestLogFields } },
    bodyLimit: config.bodyLimit,
    // Behind a front door: request.ip (failure limit, logs, audit) and request.protocol from X-Forwarded-*.
    trustProxy: trustProxyOption(config.trustProxy),
    ...connectionOptions(config),
    requestIdHeader: false,
    logController: new ServiceLogController(),
    genReqId: (request) => {
      const sent = request.headers['x-request-id']
      return typeof sent === 'string' && REQUEST_ID.test(sent) ? sent : crypto.randomUUID()
    },
    routerOptions: { ignoreTrailingSlash: false },
    // Errors Fastify answers before routing (a path that is not valid percent-encoding)
    // get the same {"detail"} body as everything else.
    frameworkErrors: (error, _request, reply: FastifyReply) => {
      const badUrl = (error as { code?: string }).code === 'FST_ERR_BAD_URL'
      reply.code(400).send({ detail: badUrl ? 'Malformed request: the path is not valid percent-encoding' : 'Malformed request' })
    }
  }).withTypeProvider<TypeBoxTypeProvider>()

  app.setValidatorCompiler(validatorCompiler)
  app.setErrorHandler(handleError)
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ detail: 'Not Found' }))
  registerJsonParser(app, config.bodyLimit)
  guardConnections(app)
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id)
    done()
  })
  if (deps.database === undefined) app.addHook('onClose', async () => { await database.close() })

  const metrics = createMetrics(async () => {
    const counts: Record<string, number> = {}
    const at = now()
    for (const member of await database.read(listCooldowns)) {
      const health = healthAt(member, at)
      counts[health] = (counts[health] ?? 0) + 1
    }
    return counts
  })
  // Hooks that need the route's URL are attached to each route as it is added (its URL
  // a constant there): reading `request.routeOptions` builds an object per request.
  // `settle` is filled in once the runtime exists; no request is served before that.
  let settle: (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => void = (_request, _reply, done) => { done() }
  // Every operation documented the same way: its operationId and its error answers.
  app.addHook('onRoute', documentRoute)
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

  // Before authentication: a browser's preflight carries no token, and a refusal needs the CORS headers to be read.
  if (config.corsOrigins !== null) {
    await registerCors(app, config.corsOrigins)
    if (config.corsOrigins === '*' && config.authTokens.length === 0) {
      app.log.warn('CORS_ORIGINS is * and no AUTH_TOKENS are set: any web page a user of this machine opens may drive the admin API')
    }
  }
  // First, so it sees (and decides the scope of) every route registered after it.
  await app.register(auth, { tokens: config.authTokens, publicDocs: config.publicDocs, failureLimit: config.authFailureLimit, now: () => now().getTime() })
  // Off unless ADMIN_RATE_LIMIT is set: scripted provisioning is what operators do first.
  if (config.adminRateLimit !== null) {
    await app.register(rateLimit, {
      global: true,
      max: config.adminRateLimit,
      timeWindow: 60_000,
      hook: 'preHandler',
      keyGenerator: (request) => request.actor !== 'anonymous' ? `token:${request.actor}` : `ip:${request.ip}`,
      // Only admin routes are limited (the auth plugin sets `rateLimit: false` on the others).
      errorResponseBuilder: (_request, context) => Object.assign(new Error(`Rate limit exceeded: at most ${context.max} admin requests per minute; retry in ${context.after}`), { statusCode: 429 })
    })
  }
  // Every API call but the proxy's sees what this process's proxied traffic did. Added
  // after the rate limit's hook (a refused call waits for nothing); not on /healthz, the
  // docs or /metrics, which answer at once whatever the database does.
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/api/') && route.url !== PROXY_ROUTE) {
      addRouteHook(route, 'preHandler', (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => { settle(request, reply, done) })
    }
  })

  await app.register(swagger, {
    openapi: {
      info: { title: 'sourcepool', version: '0.1.0', description: 'Pools of interchangeable upstream data providers' },
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'AUTH_TOKENS secret; scopes read < client < admin' } } },
      security: config.authTokens.length > 0 ? [{ bearerAuth: [] }] : []
    },
    // Only the OpenAPI 3 document is built (no `swagger` option).
    transformObject: (document) => validOpenApi(document as { openapiObject: Record<string, unknown> })
  })
  await app.register(swaggerUi, { routePrefix: '/docs' })
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())

  // This process's committed changes, for everything that keeps state in memory.
  const changes = createChangeFeed()
  const services = { database, now, changes }
  // Background jobs that keep caller-grown tables bounded (expired rows purged).
  const housekeeping: Array<() => Promise<void>> = []
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
  app.addHook('onClose', (_instance, done) => {
    clearInterval(housekeepingTimer)
    done()
  })
  await app.register(healthzRoutes, { ping: database.ping })
  await app.register(sessionRoutes, { tokensRequired: config.authTokens.length > 0 })
  await app.register(uiRoutes)
  await app.register(providerRoutes, { providers: createProviderService(services) })
  await app.register(poolRoutes, { pools: createPoolService(services) })
  await app.register(memberRoutes, { members: createMemberService(services) })
  const activity = createActivityService(services)
  housekeeping.push(activity.purgeExpired)
  await app.register(activityRoutes, { activity })
  const rotation = createRotationService({ ...services, random: deps.random, events: metrics.events })
  const outcomes = createOutcomeService({ ...services, events: metrics.events })
  await app.register(rotationRoutes, { rotation })
  await app.register(outcomeRoutes, { outcomes })
  await app.register(explainRoutes, { explain: createExplainService(services) })
  const runtime = createPoolRuntime({
    ...services,
    random: deps.random,
    events: metrics.events,
    flushIntervalMs: config.flushIntervalMs,
    maxRefusalsPerProvider: config.maxRefusalsPerProvider,
    warn: (error, message) => { app.log.warn({ err: error }, message) }
  })
  runtime.start()
  app.decorate('runtime', runtime)
  // Every API call but the proxy's sees what this process's proxied traffic did:
  // what is pending is written down first (at most one flush, usually nothing to do).
  settle = (_request, _reply, done) => {
    if (!runtime.unsettled()) {
      done()
      return
    }
    runtime.settle().then(() => { done() }, done)
  }
  const proxy = createProxyService({ runtime })
  const healthChecks = createHealthChecker({
    ...services,
    events: metrics.events,
    checkEvents: metrics.checkEvents,
    concurrency: config.healthCheckConcurrency,
    warn: (error, message) => { app.log.warn({ err: error }, message) }
  })
  if (deps.healthCheckTimer !== false) healthChecks.start()
  app.decorate('healthChecks', healthChecks)
  // The checks under way and the proxy's connections end first, then the runtime writes down what is left.
  app.addHook('onClose', async () => {
    await healthChecks.close()
    await proxy.close()
    await runtime.close()
  })
  await app.register(proxyRoutes, { proxy, ownCors: config.corsOrigins !== null })
  const refusals = createRefusalService(services)
  housekeeping.push(refusals.purgeExpired)
  await app.register(refusalRoutes, { refusals })
  await app.register(chunkRoutes, { chunks: createChunkService(services), search: createChunkSearch(services) })
  await app.register(metricsRoutes, { registry: metrics.registry })
  const audit = createAuditService({ ...services, maxAgeDays: config.auditMaxAgeDays })
  if (config.auditMaxAgeDays !== null) housekeeping.push(async () => { await audit.purgeExpired() })
  const historyRetention = createHistoryRetention({ ...services, maxPerPool: config.historyMaxPerPool, maxAgeDays: config.historyMaxAgeDays })
  if (config.historyMaxPerPool !== null || config.historyMaxAgeDays !== null) housekeeping.push(async () => { await historyRetention.prune() })
  await app.register(auditRoutes, { audit })
  const hub = createEventHub({
    database,
    pollMs: config.flushIntervalMs,
    heartbeatMs: config.eventsHeartbeatMs,
    maxBufferedBytes: config.eventsClientBufferBytes,
    warn: (error, message) => { app.log.warn({ err: error }, message) }
  })
  // Streams end before the server waits for its connections to close.
  app.addHook('preClose', async () => { await hub.close() })
  await app.register(eventRoutes, { hub, maxClients: config.eventsMaxClients })
  const declared = createDeclaredService(services)
  app.decorate('declared', declared)
  await app.register(declaredRoutes, { declared })
  await app.register(v1Routes)

  return app
}
