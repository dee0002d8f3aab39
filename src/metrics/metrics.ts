/**
 * Prometheus metrics (prom-client), one registry per app: rotation events that
 * services report through the narrow `RotationEvents` interface, members by
 * health (read from the database at scrape time, so every process agrees), and
 * HTTP request durations.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client'

/** What the rotation services tell the metrics about. */
export interface RotationEvents {
  rotated(poolId: number, provider: string | null): void
  failedOver(poolId: number, failedProvider: string | null): void
  reported(success: boolean): void
  cooldownStarted(reason: string): void
}

export const NO_EVENTS: RotationEvents = {
  rotated: () => {},
  failedOver: () => {},
  reported: () => {},
  cooldownStarted: () => {}
}

/** What the active health checks tell the metrics about. */
export interface CheckEvents {
  checked(provider: string, result: string, seconds: number): void
}

/** What the proxy tells the metrics about its retries. */
export interface RetryEvents {
  retried(poolId: number, kind: 'failover' | 'hedge'): void
  budgetExhausted(poolId: number): void
}

export const NO_RETRY_EVENTS: RetryEvents = { retried: () => {}, budgetExhausted: () => {} }

export const NO_CHECK_EVENTS: CheckEvents = { checked: () => {} }

/** Builds the registry; `membersByHealth` is asked at each scrape. */
/** Labelled request-duration children kept for reuse (methods × routes × statuses seen; bounded). */
const MAX_OBSERVED = 4096

/** One node's head in one evm pool, for the head gauges. */
export interface NodeHeadSample { readonly poolId: number, readonly provider: string | null, readonly head: number | null, readonly lag: number | null }

/** One pool's streams in this process, for the stream metrics (streams/stream-registry.ts). */
export interface StreamSample {
  readonly poolId: number
  readonly open: number
  readonly subscriptions: number
  /** Upstream sockets open, by provider id. */
  readonly upstreams: ReadonlyMap<number, number>
  readonly failovers: number
  readonly messages_to_clients: number
  readonly messages_to_upstreams: number
}

export function createMetrics (membersByHealth: () => Promise<Record<string, number>>) {
  const registry = new Registry()
  const registers = [registry]
  // Counted per event in plain maps (the proxy counts one rotation and one report per
  // attempt) and added to prom-client's counters when a scrape collects them.
  const rotationCounts = new Map<number, Map<string, number>>()
  const reportCounts = { success: 0, failure: 0 }
  // eslint-disable-next-line no-new -- registered through `registers`
  new Counter({
    name: 'sourcepool_rotations_total',
    help: 'Providers handed out by rotate and failover',
    labelNames: ['pool_id', 'provider'],
    registers,
    collect () {
      for (const [poolId, byProvider] of rotationCounts) {
        for (const [provider, count] of byProvider) this.inc({ pool_id: String(poolId), provider }, count)
      }
      rotationCounts.clear()
    }
  })
  const failovers = new Counter({ name: 'sourcepool_failovers_total', help: 'Failovers, by the provider that failed', labelNames: ['pool_id', 'failed_provider'], registers })
  // eslint-disable-next-line no-new -- registered through `registers`
  new Counter({
    name: 'sourcepool_reports_total',
    help: 'Outcome reports received',
    labelNames: ['outcome'],
    registers,
    collect () {
      for (const outcome of ['success', 'failure'] as const) {
        // Always present, from zero: a dashboard's rate() needs the series before the first event.
        this.inc({ outcome }, reportCounts[outcome])
        reportCounts[outcome] = 0
      }
    }
  })
  const cooldowns = new Counter({ name: 'sourcepool_cooldowns_started_total', help: 'Member cooldowns started', labelNames: ['reason'], registers })
  const checks = new Counter({ name: 'sourcepool_health_checks_total', help: 'Active health checks, by provider and result (ok, unexpected_status, timeout, error)', labelNames: ['provider', 'result'], registers })
  // By result only: a provider label would multiply the buckets by the number of providers.
  const checkDurations = new Histogram({
    name: 'sourcepool_health_check_duration_seconds',
    help: 'Active health check durations (answer and body read)',
    labelNames: ['result'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers
  })
  const observed = new Map<string, { observe: (value: number) => void }>()
  const durations = new Histogram({
    name: 'sourcepool_http_request_duration_seconds',
    help: 'HTTP request durations',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers
  })
  // eslint-disable-next-line no-new -- registered through `registers`
  new Gauge({
    name: 'sourcepool_members',
    help: 'Pool members by health',
    labelNames: ['health'],
    registers,
    async collect () {
      const counts = await membersByHealth()
      for (const health of ['healthy', 'cooling_down', 'probing']) this.set({ health }, counts[health] ?? 0)
    }
  })

  const events: RotationEvents = {
    rotated: (poolId, provider) => {
      let byProvider = rotationCounts.get(poolId)
      if (byProvider === undefined) rotationCounts.set(poolId, byProvider = new Map())
      const name = provider ?? ''
      byProvider.set(name, (byProvider.get(name) ?? 0) + 1)
    },
    failedOver: (poolId, failedProvider) => failovers.inc({ pool_id: String(poolId), failed_provider: failedProvider ?? '' }),
    reported: (success) => { reportCounts[success ? 'success' : 'failure']++ },
    cooldownStarted: (reason) => cooldowns.inc({ reason })
  }

  // Counted in a plain map per request, added to the counter at a scrape (a hit costs one Map update).
  const cacheCounts = new Map<string, number>()
  // eslint-disable-next-line no-new -- registered through `registers`
  new Counter({
    name: 'sourcepool_cache_requests_total',
    help: 'Proxied requests of pools with a response cache, by what the cache did (HIT, STALE: no upstream call; MISS, BYPASS: one went upstream)',
    labelNames: ['pool_id', 'result'],
    registers,
    collect () {
      for (const [label, count] of cacheCounts) {
        const [poolId, result] = label.split(' ')
        this.inc({ pool_id: poolId, result }, count)
      }
      cacheCounts.clear()
    }
  })
  const cacheEvents = {
    cacheResult: (poolId: number, result: string) => {
      const label = `${poolId} ${result}`
      cacheCounts.set(label, (cacheCounts.get(label) ?? 0) + 1)
    }
  }

  const retries = new Counter({
    name: 'sourcepool_proxy_retries_total',
    help: "Proxied attempts that spent the pool's retry budget, by kind (failover: after a failure; hedge: beside a slow attempt)",
    labelNames: ['pool_id', 'kind'],
    registers
  })
  const exhausted = new Counter({
    name: 'sourcepool_retry_budget_exhausted_total',
    help: "Proxied requests whose failing attempt was not retried because the pool's retry budget was spent",
    labelNames: ['pool_id'],
    registers
  })
  const retryEvents: RetryEvents = {
    retried: (poolId, kind) => { retries.inc({ pool_id: String(poolId), kind }) },
    budgetExhausted: (poolId) => { exhausted.inc({ pool_id: String(poolId) }) }
  }

  const checkEvents: CheckEvents = {
    checked: (provider, result, seconds) => {
      checks.inc({ provider, result })
      checkDurations.observe({ result }, seconds)
    }
  }

  // An evm pool's nodes' heads, as the head tracker knows them at a scrape (issue 36 item 6).
  let heads: () => readonly NodeHeadSample[] = () => []
  const headGauge = (name: string, help: string, value: (sample: NodeHeadSample) => number | null): void => {
    // eslint-disable-next-line no-new -- registered through `registers`
    new Gauge({
      name,
      help,
      labelNames: ['pool_id', 'provider'],
      registers,
      collect () {
        // Only the nodes watched now: a pool no longer used drops out.
        this.reset()
        for (const sample of heads()) {
          const v = value(sample)
          if (v !== null) this.set({ pool_id: String(sample.poolId), provider: sample.provider ?? '' }, v)
        }
      }
    })
  }
  headGauge('sourcepool_member_head_block', 'The head block of each node of an evm pool in use, as its checks and answers told this process', (s) => s.head)
  headGauge('sourcepool_member_block_lag', "How many blocks each node of an evm pool in use is behind the pool's highest head", (s) => s.lag)

  // WebSocket streams through the pools, as this process's stream registry counts them at a scrape (issue 37 item 6).
  let streams: () => readonly StreamSample[] = () => []
  const streamMetric = (Kind: typeof Gauge | typeof Counter, name: string, help: string, labelNames: string[], fill: (sample: StreamSample, put: (labels: Record<string, string>, value: number) => void) => void): void => {
    // eslint-disable-next-line no-new -- registered through `registers`
    new Kind({
      name,
      help,
      labelNames,
      registers,
      collect (this: Gauge | Counter) {
        this.reset()
        for (const sample of streams()) fill(sample, (labels, value) => { if (this instanceof Gauge) this.set(labels, value); else this.inc(labels, value) })
      }
    })
  }
  streamMetric(Gauge, 'sourcepool_streams_open', 'WebSocket client streams open in each pool on this process', ['pool_id'], (s, put) => { put({ pool_id: String(s.poolId) }, s.open) })
  streamMetric(Gauge, 'sourcepool_stream_upstreams_open', 'Upstream WebSocket connections open, by pool and provider', ['pool_id', 'provider_id'], (s, put) => {
    for (const [provider, count] of s.upstreams) put({ pool_id: String(s.poolId), provider_id: String(provider) }, count)
  })
  streamMetric(Gauge, 'sourcepool_stream_subscriptions', 'Upstream eth_subscribe subscriptions, each shared by its clients', ['pool_id'], (s, put) => { put({ pool_id: String(s.poolId) }, s.subscriptions) })
  streamMetric(Counter, 'sourcepool_stream_failovers_total', 'Streams moved to another member after their upstream was lost', ['pool_id'], (s, put) => { put({ pool_id: String(s.poolId) }, s.failovers) })
  streamMetric(Counter, 'sourcepool_stream_messages_total', 'Stream messages relayed, by direction (to_clients counts each client)', ['pool_id', 'direction'], (s, put) => {
    put({ pool_id: String(s.poolId), direction: 'to_clients' }, s.messages_to_clients)
    put({ pool_id: String(s.poolId), direction: 'to_upstreams' }, s.messages_to_upstreams)
  })

  return {
    registry,
    events,
    /** Where the stream metrics read the streams at a scrape. */
    streamsFrom: (source: () => readonly StreamSample[]): void => { streams = source },
    /** Where the head gauges read the evm pools' heads at a scrape. */
    headsFrom: (source: () => readonly NodeHeadSample[]): void => { heads = source },
    checkEvents,
    cacheEvents,
    retryEvents,
    observeRequest: (method: string, route: string, statusCode: number, seconds: number) => {
      // One labelled child per method, route and status, kept: no labels object per request.
      const key = `${method} ${statusCode} ${route}`
      let child = observed.get(key)
      if (child === undefined) {
        child = durations.labels({ method, route, status_code: String(statusCode) })
        if (observed.size < MAX_OBSERVED) observed.set(key, child)
      }
      child.observe(seconds)
    }
  }
}

export type Metrics = ReturnType<typeof createMetrics>
