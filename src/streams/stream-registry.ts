/**
 * This process's open streams, per pool: what the bounds count (`ws_max_streams`
 * per pool, `ws_max_streams_per_client` per client address, asked before an
 * upgrade is taken), what a shutdown closes (1001), and what the status record and
 * Prometheus show: open client streams, open upstream sockets per member,
 * failovers and messages relayed each way since the process started.
 */

import type { PoolStreamCounts } from '../pools/pool-streams.js'

/** A client stream the registry can close. */
export interface OpenStream {
  /** Ends the stream with a close frame `code` and `reason` to its client. */
  end: (code: number, reason: string) => void
}

/** What a pool's streams show (status record, metrics): pools/pool-streams.ts's shape. */
export type StreamCounts = PoolStreamCounts

interface PoolStreams {
  readonly streams: Set<OpenStream>
  readonly byClient: Map<string, number>
  readonly upstreams: Map<number, number>
  subscriptions: number
  failovers: number
  toClients: number
  toUpstreams: number
}

/** Why a stream was refused before its upgrade (429). */
export type Refusal = { readonly detail: string } | undefined

/** Builds the registry. */
export function createStreamRegistry () {
  const pools = new Map<number, PoolStreams>()
  const of = (poolId: number): PoolStreams => {
    let found = pools.get(poolId)
    if (found === undefined) pools.set(poolId, found = { streams: new Set(), byClient: new Map(), upstreams: new Map(), subscriptions: 0, failovers: 0, toClients: 0, toUpstreams: 0 })
    return found
  }
  const bump = (map: Map<number | string, number>, key: number | string, by: number) => {
    const count = (map.get(key) ?? 0) + by
    if (count <= 0) map.delete(key)
    else map.set(key, count)
  }

  return {
    /** The 429 of a stream past its pool's bounds, or undefined when it may open. */
    refusal (poolId: number, client: string, limits: { ws_max_streams: number, ws_max_streams_per_client: number }): Refusal {
      const pool = pools.get(poolId)
      if (pool === undefined) return undefined
      if (pool.streams.size >= limits.ws_max_streams) return { detail: `Pool ${poolId} has ${pool.streams.size} streams open, its ws_max_streams` }
      if ((pool.byClient.get(client) ?? 0) >= limits.ws_max_streams_per_client) return { detail: `This client has ${limits.ws_max_streams_per_client} streams open in pool ${poolId}, its ws_max_streams_per_client` }
      return undefined
    },

    /** Counts a client stream as open; the returned function counts it closed (once). */
    opened (poolId: number, client: string, stream: OpenStream): () => void {
      const pool = of(poolId)
      pool.streams.add(stream)
      bump(pool.byClient, client, 1)
      let open = true
      return () => {
        if (!open) return
        open = false
        pool.streams.delete(stream)
        bump(pool.byClient, client, -1)
      }
    },

    /** Counts an upstream socket to `providerId` open (+1) or closed (−1). */
    upstream (poolId: number, providerId: number, by: 1 | -1): void { bump(of(poolId).upstreams, providerId, by) },
    /** Counts upstream subscriptions made (+) or ended (−). */
    subscribed (poolId: number, by: number): void { of(poolId).subscriptions += by },
    failedOver (poolId: number): void { of(poolId).failovers++ },
    toClients (poolId: number, count = 1): void { of(poolId).toClients += count },
    toUpstream (poolId: number): void { of(poolId).toUpstreams++ },

    /** What `poolId`'s streams show. */
    counts (poolId: number): StreamCounts {
      const pool = pools.get(poolId)
      return {
        open: pool?.streams.size ?? 0,
        upstreams: pool?.upstreams ?? new Map(),
        subscriptions: pool?.subscriptions ?? 0,
        failovers: pool?.failovers ?? 0,
        messages_to_clients: pool?.toClients ?? 0,
        messages_to_upstreams: pool?.toUpstreams ?? 0
      }
    },

    /** Whether `poolId` has had streams on this process (its counts move then). */
    has: (poolId: number): boolean => pools.has(poolId),

    /** Every pool with streams counted, for Prometheus. */
    poolIds: (): number[] => [...pools.keys()],

    /** Ends every open stream with `code` (a shutdown's 1001). */
    endAll (code: number, reason: string): void {
      for (const pool of pools.values()) for (const stream of [...pool.streams]) stream.end(code, reason)
    }
  }
}

export type StreamRegistry = ReturnType<typeof createStreamRegistry>
