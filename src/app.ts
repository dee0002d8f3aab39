/**
 * buildApp: the one Fastify instance, used by `main.ts` and by every test. It reads
 * as the list of what the service is made of: the instance and its options, how
 * requests and errors are handled, the plugins every route goes through, the
 * services (services.ts), the routes, and the background jobs (background.ts).
 * The port's requests pass a front handler first: proxied ones go to the data plane
 * (proxy/data-plane.ts), outside Fastify's per-request lifecycle; `app.inject` goes
 * through it too, so tests reach the data plane as clients do.
 */
import rateLimit from '@fastify/rate-limit'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyServerFactory } from 'fastify'
import lightMyRequest from 'light-my-request'
import { auditRoutes } from './audit/audit.routes.js'
import { auth } from './auth/auth.plugin.js'
import { createFailureLimiter, type FailureLimiter } from './auth/failure-limit.js'
import { sessionRoutes } from './auth/session.routes.js'
import { background } from './background.js'
import type { HealthChecker } from './checks/health-checker.js'
import { chunkRoutes } from './chunks/chunk.routes.js'
import { trustProxyOption, type Config } from './config.js'
import { createDb, type DbHandle } from './db/create-db.js'
import { declaredRoutes } from './declared/declared.routes.js'
import type { DeclaredService } from './declared/declared.service.js'
import { eventRoutes } from './events/events.routes.js'
import { healthzRoutes } from './healthz.routes.js'
import { clientAddress } from './http/client-address.js'
import { connectionOptions, guardConnections, requestLogFields, type ConnectionGuard } from './http/connections.js'
import { registerCors } from './http/cors.js'
import { handleError } from './http/error-handler.js'
import { errorLogFields } from './http/redact.js'
import { registerJsonParser } from './http/json-parser.js'
import { ServiceLogController } from './http/log-controller.js'
import { documentRoute, validOpenApi } from './http/openapi.js'
import { REQUEST_ID_HEADER, requestIdOf, sendRequestIds } from './http/request-id.js'
import { validatorCompiler } from './http/validation.js'
import { metricsRoutes } from './metrics/metrics.routes.js'
import { requestMetrics } from './metrics/request-metrics.js'
import { activityRoutes } from './pools/activity.routes.js'
import { memberRoutes } from './pools/member.routes.js'
import { poolRoutes } from './pools/pool.routes.js'
import { providerRoutes } from './providers/provider.routes.js'
import { refusalRoutes } from './providers/refusal.routes.js'
import { createDataPlane, type DataPlane } from './proxy/data-plane.js'
import { proxyRoutes } from './proxy/proxy.routes.js'
import { explainRoutes } from './rotation/explain.routes.js'
import { outcomeRoutes } from './rotation/outcome.routes.js'
import { rotationRoutes } from './rotation/rotation.routes.js'
import type { PoolRuntime } from './runtime/pool-runtime.js'
import type { ServingPort } from './serving-port.js'
import { buildServices, type Services } from './services.js'
import { settleBeforeReading } from './settle.js'
import { createStreams, type Streams } from './streams/streams.js'
import { uiRoutes } from './ui/ui.routes.js'
import { v1Routes } from './v1/v1.routes.js'

export interface AppDeps {
  /** An open database; by default `config.databaseUrl` is opened (and closed with the app). */
  database?: DbHandle
  now?: () => Date
  random?: () => number
  /** Pino options (a `stream` included) or false; by default JSON logs at `config.logLevel`. */
  logger?: boolean | { level: string, stream?: { write: (line: string) => void } }
  /** false: health checks run only when `app.healthChecks.checkNow()` is called (tests on a test clock). */
  healthCheckTimer?: boolean
  /**
   * A server bound by the caller before the database is opened (main.ts, serving-port.ts):
   * Fastify's serverFactory. The app never listens then; it closes that server at
   * shutdown, waiting for its connections, before the background jobs stop.
   */
  serverFactory?: FastifyServerFactory
  /** PROXY_PORT's listener, bound by the caller (main.ts): it serves the data plane alone; closed with the app. */
  dataPlanePort?: Pick<ServingPort, 'serverFactory'>
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The proxy's per-process pool runtime (flush it to write down proxied traffic now). */
    runtime: PoolRuntime
    /** The active health checker (`checkNow` runs what is due and waits for it to be written down). */
    healthChecks: HealthChecker
    /** Pools as code: plan, apply and export a declared state (CONFIG_FILE is applied through it at start). */
    declared: DeclaredService
    /** WebSocket streams through the pools (their counts for the status record and metrics). */
    streams: Streams
  }
}

/**
 * Where the port's requests go: the data plane's to the data plane (proxy/entry.ts),
 * every other to Fastify's router. Set once the services are built; until then
 * (and the serving port holds requests until then) everything is Fastify's.
 */
interface Front {
  plane: DataPlane | undefined
  /** Fastify's own request handler (its router), as its serverFactory was given it. */
  fastify: ((request: IncomingMessage, response: ServerResponse) => void) | undefined
}

/** The port's request handler: the data plane's requests to it, the others to Fastify. */
function frontHandler (front: Front) {
  return (request: IncomingMessage, response: ServerResponse): void => {
    const plane = front.plane
    const target = plane?.target(request)
    if (target === undefined) (front.fastify as NonNullable<Front['fastify']>)(request, response)
    else (plane as DataPlane).serve(request, response, target)
  }
}

/** Builds the service; the caller listens (main.ts) or injects (tests). */
export async function buildApp (config: Config, deps: AppDeps = {}): Promise<FastifyInstance> {
  const database = deps.database ?? await createDb(config.databaseUrl)
  const now = deps.now ?? (() => new Date())

  const front: Front = { plane: undefined, fastify: undefined }
  const app = createInstance(config, deps.logger ?? { level: config.logLevel }, front, deps.serverFactory)
  const connections = handleRequests(app, config)
  // Registered before the background jobs' close: it runs after theirs (onClose hooks run last-added first).
  if (deps.database === undefined) app.addHook('onClose', async () => { await database.close() })

  const services = buildServices({ config, database, now, random: deps.random, warn: (error, message) => { app.log.warn({ err: error }, message) } })
  app.decorate('runtime', services.runtime)
  app.decorate('healthChecks', services.healthChecks)
  app.decorate('declared', services.declared)

  const failures = config.authFailureLimit === null ? undefined : createFailureLimiter(config.authFailureLimit, () => now().getTime())
  front.plane = createDataPlane({
    pipelines: services.pipelines,
    poolNames: services.poolNames,
    tokens: config.authTokens,
    failures,
    cors: config.corsOrigins,
    client: clientAddress(trustProxyOption(config.trustProxy)),
    metrics: services.metrics,
    log: app.log,
    closing: connections.closing
  })
  const streams = createStreams({
    registry: services.streams,
    runtime: services.runtime,
    pipelines: services.pipelines,
    poolNames: services.poolNames,
    tokens: config.authTokens,
    failures,
    client: clientAddress(trustProxyOption(config.trustProxy)),
    log: app.log,
    random: deps.random
  })
  app.decorate('streams', streams)
  // Once every plugin has added its own (the v1 routes' WebSocket), upgrades to a pool's URLs are the streams'.
  app.addHook('onReady', async () => { streamUpgrades(app.server, streams, true) })
  app.addHook('preClose', async () => { await streams.close() })
  if (deps.dataPlanePort !== undefined) {
    const plane = front.plane
    const server = deps.dataPlanePort.serverFactory((request, response) => { plane.servePort(request, response) }, {})
    connections.guard(server, config)
    streamUpgrades(server, streams, false)
    app.addHook('onClose', async () => { await new Promise((resolve) => server.close(resolve)) })
  }
  await registerPlugins(app, config, services, failures)
  await registerRoutes(app, config, services, database, front.plane)
  await app.register(background, { ...services, healthCheckTimer: deps.healthCheckTimer !== false })
  // Fastify closes only a server it listened on; added last, this runs before the background jobs' close.
  if (deps.serverFactory !== undefined) app.addHook('onClose', async () => { await new Promise((resolve) => app.server.close(resolve)) })
  return app
}

/**
 * Upgrades to a pool's URLs go to the streams; the others to the listeners the
 * server had (`others`: the v1 routes' WebSocket plugin on PORT), or, with none,
 * nowhere (PROXY_PORT serves the data plane alone: its socket is closed).
 */
function streamUpgrades (server: Server, streams: Streams, others: boolean): void {
  const listeners = others ? server.listeners('upgrade') as Array<(request: IncomingMessage, socket: Duplex, head: Buffer) => void> : []
  server.removeAllListeners('upgrade')
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const target = streams.target(request)
    if (target !== undefined) streams.upgrade(request, socket, head, target)
    else if (listeners.length === 0) socket.destroy()
    else for (const listener of listeners) listener.call(server, request, socket, head)
  })
}

/**
 * The server Fastify would have made itself (createServer with the connection
 * limits), made here so that its requests go through the front handler too.
 */
function ownServer (config: Config, handler: (request: IncomingMessage, response: ServerResponse) => void) {
  const options = connectionOptions(config)
  const server = createServer(options.http, handler)
  server.keepAliveTimeout = options.keepAliveTimeout ?? server.keepAliveTimeout
  server.requestTimeout = options.requestTimeout ?? server.requestTimeout
  return server
}

/**
 * `app.inject` through the front handler, as a request on the port goes: the data
 * plane's requests reach the data plane (tests inject proxied requests).
 */
function injectThroughFront (app: FastifyInstance, handler: (request: IncomingMessage, response: ServerResponse) => void): void {
  const inject = app.inject.bind(app)
  app.inject = function (options?: unknown, callback?: unknown) {
    if (options === undefined || callback !== undefined) return Reflect.apply(inject, app, [options, callback])
    return lightMyRequest((request, response) => {
      app.ready().then(() => { handler(request, response) }, (error: unknown) => { response.emit('error', error) })
    }, options as lightMyRequest.InjectOptions)
  } as FastifyInstance['inject']
}

/** The Fastify instance and its options; every answer it sends carries the request id. */
function createInstance (config: Config, logger: NonNullable<AppDeps['logger']>, front: Front, serverFactory?: FastifyServerFactory): FastifyInstance {
  const handler = frontHandler(front)
  const app = Fastify({
    serverFactory: (fastify, options) => {
      front.fastify = fastify
      return serverFactory !== undefined ? serverFactory(handler, options) : ownServer(config, handler)
    },
    logger: logger === false || logger === true ? logger : { ...logger, serializers: { req: requestLogFields, err: errorLogFields } },
    bodyLimit: config.bodyLimit,
    // Behind a front door: request.ip (failure limit, logs, audit) and request.protocol from X-Forwarded-*.
    trustProxy: trustProxyOption(config.trustProxy),
    ...connectionOptions(config),
    requestIdHeader: false,
    logController: new ServiceLogController(),
    genReqId: requestIdOf,
    routerOptions: { ignoreTrailingSlash: false },
    // Errors Fastify answers before routing (a path that is not valid percent-encoding)
    // get the same {"detail"} body as everything else; no hook runs for them.
    frameworkErrors: (error, request, reply: FastifyReply) => {
      const badUrl = (error as { code?: string }).code === 'FST_ERR_BAD_URL'
      reply.code(400).header(REQUEST_ID_HEADER, request.id)
        .send({ detail: badUrl ? 'Malformed request: the path is not valid percent-encoding' : 'Malformed request' })
    }
  }).withTypeProvider<TypeBoxTypeProvider>()
  // The first hook of all, so that every answer Fastify sends has it (connections.ts the others).
  sendRequestIds(app)
  injectThroughFront(app, handler)
  return app
}

/** Validation, errors, the JSON body parser and what a connection may cost (`closing`: the app is closing). */
function handleRequests (app: FastifyInstance, config: Config): ConnectionGuard {
  app.setValidatorCompiler(validatorCompiler)
  app.setErrorHandler(handleError)
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ detail: 'Not Found' }))
  registerJsonParser(app, config.bodyLimit)
  return guardConnections(app)
}

/** What every route goes through, in this order: each sees the routes registered after it. */
async function registerPlugins (app: FastifyInstance, config: Config, { metrics, runtime }: Services, failures: FailureLimiter | undefined): Promise<void> {
  // Every operation documented the same way: its operationId and its error answers.
  app.addHook('onRoute', documentRoute)
  await app.register(requestMetrics, { metrics })

  // Before authentication: a browser's preflight carries no token, and a refusal needs the CORS headers to be read.
  if (config.corsOrigins !== null) {
    await registerCors(app, config.corsOrigins)
    if (config.corsOrigins === '*' && config.authTokens.length === 0) {
      app.log.warn('CORS_ORIGINS is * and no AUTH_TOKENS are set: any web page a user of this machine opens may drive the admin API')
    }
  }
  // First, so it sees (and decides the scope of) every route registered after it.
  await app.register(auth, { tokens: config.authTokens, publicDocs: config.publicDocs, failures })
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
  // After the rate limit's hook: a refused call waits for nothing.
  await app.register(settleBeforeReading, { runtime })

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
}

/** The routes, in the order the OpenAPI document lists them. */
async function registerRoutes (app: FastifyInstance, config: Config, s: Services, database: DbHandle, dataPlane: DataPlane): Promise<void> {
  await app.register(healthzRoutes, { ping: database.ping, cacheProblem: s.proxy.problem })
  await app.register(sessionRoutes, { tokensRequired: config.authTokens.length > 0 })
  await app.register(uiRoutes)
  await app.register(providerRoutes, { providers: s.providers })
  await app.register(poolRoutes, { pools: s.pools })
  await app.register(memberRoutes, { members: s.members })
  await app.register(activityRoutes, { activity: s.activity })
  await app.register(rotationRoutes, { rotation: s.rotation })
  await app.register(outcomeRoutes, { outcomes: s.outcomes })
  await app.register(explainRoutes, { explain: s.explain })
  await app.register(proxyRoutes, { proxy: s.proxy, dataPlane })
  await app.register(refusalRoutes, { refusals: s.refusals })
  await app.register(chunkRoutes, { chunks: s.chunks, search: s.chunkSearch })
  await app.register(metricsRoutes, { registry: s.metrics.registry })
  await app.register(auditRoutes, { audit: s.audit })
  await app.register(eventRoutes, { hub: s.hub, maxClients: config.eventsMaxClients, stallMs: config.eventsStallMs })
  await app.register(declaredRoutes, { declared: s.declared })
  await app.register(v1Routes)
}
