/**
 * What the service is made of: every service, built once, in the floors' order
 * (docs/architecture.md), each given only what it needs. Nothing here starts
 * anything (background.ts does) or knows Fastify (app.ts registers the routes).
 */
import { createAuditService } from './audit/audit.service.js'
import { createChangeFeed } from './changes.js'
import { createHealthChecker } from './checks/health-checker.js'
import { createChunkSearch } from './chunks/chunk-search.js'
import { createChunkService } from './chunks/chunk.service.js'
import type { Config } from './config.js'
import type { DbHandle } from './db/create-db.js'
import { createDeclaredService } from './declared/declared.service.js'
import { createEventHub } from './events/event-hub.js'
import { createMetrics } from './metrics/metrics.js'
import { createActivityService } from './pools/activity.service.js'
import { createHistoryRetention } from './pools/history-retention.js'
import { listCooldowns } from './pools/member.repository.js'
import { createMemberService } from './pools/member.service.js'
import { createPoolService } from './pools/pool.service.js'
import { createProviderService } from './providers/provider.service.js'
import { createRefusalService } from './providers/refusal.service.js'
import { createCacheStore } from './cache/create-store.js'
import { joinPurgeRelay } from './cache/purge-relay.js'
import { createCachedProxy } from './proxy/cached-proxy.js'
import { createPipelines } from './proxy/pipeline.js'
import { createPoolNames } from './proxy/pool-names.js'
import { createProxyService } from './proxy/proxy.service.js'
import { HeadTracker } from './proxy/rpc-heads.js'
import { createExplainService } from './rotation/explain.service.js'
import { createOutcomeService } from './rotation/outcome.service.js'
import { createRotationService } from './rotation/rotation.service.js'
import { healthAt } from './rules/health.js'
import { createPoolRuntime } from './runtime/pool-runtime.js'
import { createStreamRegistry } from './streams/stream-registry.js'

/** The settings the services read. */
export type ServicesConfig = Pick<Config,
  'auditMaxAgeDays' | 'historyMaxPerPool' | 'historyMaxAgeDays' | 'flushIntervalMs' | 'maxRefusalsPerProvider' |
  'healthCheckConcurrency' | 'eventsHeartbeatMs' | 'eventsClientBufferBytes' | 'cacheUrl' | 'cacheKeyPrefix' | 'cacheMaxBytes' | 'cacheMaxEntryBytes'>

export interface ServicesDeps {
  config: ServicesConfig
  database: DbHandle
  now: () => Date
  random?: () => number
  /** Where background failures (flushes, checks, event polls) are logged. */
  warn: (error: unknown, message: string) => void
}

/** Builds every service; `housekeeping` lists the jobs that keep caller-grown tables bounded. */
export function buildServices ({ config, database, now, random, warn }: ServicesDeps) {
  const metrics = createMetrics(async () => {
    const counts: Record<string, number> = {}
    const at = now()
    for (const member of await database.read(listCooldowns)) {
      const health = healthAt(member, at)
      counts[health] = (counts[health] ?? 0) + 1
    }
    return counts
  })
  // This process's committed changes, for everything that keeps state in memory
  // (listeners are told in the order they were built: the read model, then the runtime).
  const changes = createChangeFeed()
  const base = { database, now, changes }

  const audit = createAuditService({ ...base, maxAgeDays: config.auditMaxAgeDays })
  // What the data plane learned of the providers' upstream batches, in their records: asked only once requests are served.
  const providers = createProviderService({ ...base, batchesRefused: (provider) => uncached.batchesRefused(provider) })
  const refusals = createRefusalService(base)
  // The evm members' heads in status records and explanations: the tracker is built with the
  // data plane below (after the runtime, whose change listener must come after the read model's);
  // it is only asked once requests are served.
  const memberHeads = (poolId: number) => heads.heads(poolId)
  // This process's WebSocket streams: their bounds, and what the status records and metrics show of them.
  const streams = createStreamRegistry()
  const streamCounts = (poolId: number) => streams.has(poolId) ? streams.counts(poolId) : undefined
  const pools = createPoolService({ ...base, memberHeads, streamCounts })
  const members = createMemberService(base)
  const activity = createActivityService(base)
  const historyRetention = createHistoryRetention({ ...base, maxPerPool: config.historyMaxPerPool, maxAgeDays: config.historyMaxAgeDays })
  const rotation = createRotationService({ ...base, random, events: metrics.events })
  const outcomes = createOutcomeService({ ...base, events: metrics.events, maxRefusalsPerProvider: config.maxRefusalsPerProvider })
  const explain = createExplainService({ ...base, memberHeads })
  const runtime = createPoolRuntime({
    ...base,
    random,
    events: metrics.events,
    flushIntervalMs: config.flushIntervalMs,
    maxRefusalsPerProvider: config.maxRefusalsPerProvider,
    warn
  })
  const healthChecks = createHealthChecker({
    ...base,
    events: metrics.events,
    checkEvents: metrics.checkEvents,
    concurrency: config.healthCheckConcurrency,
    warn
  })
  const declared = createDeclaredService(base)
  const hub = createEventHub({
    database,
    pollMs: config.flushIntervalMs,
    heartbeatMs: config.eventsHeartbeatMs,
    maxBufferedBytes: config.eventsClientBufferBytes,
    warn
  })
  // The evm pools' nodes' heads: lagging nodes left out, final answers known (proxy/rpc-heads.ts).
  const heads = new HeadTracker({ membersOf: runtime.members, warn })
  metrics.headsFrom(() => heads.pools().flatMap((poolId) => heads.heads(poolId).map((one) => ({
    poolId, provider: one.provider_name, head: one.head === null ? null : Number(one.head), lag: one.lag
  }))))
  const uncached = createProxyService({ runtime, now, random, events: metrics.retryEvents, heads })
  const store = createCacheStore({
    url: config.cacheUrl ?? undefined,
    maxBytes: config.cacheMaxBytes,
    keyPrefix: config.cacheKeyPrefix,
    now: () => now().getTime(),
    warn: (message) => { warn(undefined, message) }
  })
  const proxy = createCachedProxy({
    proxy: uncached,
    runtime,
    store,
    maxEntryBytes: config.cacheMaxEntryBytes,
    maxBytes: config.cacheMaxBytes,
    now: () => now().getTime(),
    events: metrics.cacheEvents,
    warn,
    // A worker's memory store is its own: a purge goes to every worker (Redis is one store for all).
    relay: store.kind === 'memory' ? joinPurgeRelay((message) => { warn(undefined, message) }) : undefined,
    heads
  })
  const chunks = createChunkService(base)
  const chunkSearch = createChunkSearch(base)

  // Expired rows purged, in this order, every minute (background.ts).
  const housekeeping: Array<() => Promise<void>> = [activity.purgeExpired, refusals.purgeExpired]
  if (config.auditMaxAgeDays !== null) housekeeping.push(async () => { await audit.purgeExpired() })
  if (config.historyMaxPerPool !== null || config.historyMaxAgeDays !== null) housekeeping.push(async () => { await historyRetention.prune() })

  const poolNames = createPoolNames({ database, runtime })
  // What the data plane runs: each pool's stages, compiled per change of the pool.
  const pipelines = createPipelines({ runtime, cache: proxy, attempts: uncached, heads })
  metrics.streamsFrom(() => streams.poolIds().map((poolId) => ({ poolId, ...streams.counts(poolId) })))
  return { metrics, streams, audit, providers, refusals, pools, members, activity, rotation, outcomes, explain, runtime, healthChecks, declared, hub, uncached, proxy, pipelines, poolNames, chunks, chunkSearch, housekeeping }
}

export type Services = ReturnType<typeof buildServices>
