/**
 * What a pool's status record shows of its WebSocket streams on this process
 * (issue 37 item 6): open client streams, upstream subscriptions and sockets per
 * member, failovers and messages since the process started. They are counted by
 * the data plane (streams/stream-registry.ts), above this floor, so they come in as
 * a plain function that services.ts hands down; without one every count is 0.
 *
 * Streams move without the pool's change_seq moving, so a record of a pool that has
 * had streams here is exact for STREAMS_VALID_MS only, as an evm pool's heads are.
 */

/** How long a record of a pool with streams is served as built. */
export const STREAMS_VALID_MS = 1000

/** One pool's streams on this process. */
export interface PoolStreamCounts {
  readonly open: number
  readonly subscriptions: number
  /** Upstream sockets open, by provider id. */
  readonly upstreams: ReadonlyMap<number, number>
  readonly failovers: number
  readonly messages_to_clients: number
  readonly messages_to_upstreams: number
}

/** A pool's stream counts; undefined for a pool that has had none on this process. */
export type StreamCountsOf = (poolId: number) => PoolStreamCounts | undefined

/** No streams anywhere (a service built without the data plane). */
export const NO_STREAMS: StreamCountsOf = () => undefined

/** The record's `streams` field. */
export function streamsField (counts: PoolStreamCounts | undefined): {
  open: number
  subscriptions: number
  failovers: number
  messages_to_clients: number
  messages_to_upstreams: number
  upstreams: Array<{ provider_id: number, open: number }>
} {
  return {
    open: counts?.open ?? 0,
    subscriptions: counts?.subscriptions ?? 0,
    failovers: counts?.failovers ?? 0,
    messages_to_clients: counts?.messages_to_clients ?? 0,
    messages_to_upstreams: counts?.messages_to_upstreams ?? 0,
    upstreams: counts === undefined ? [] : [...counts.upstreams].map(([providerId, open]) => ({ provider_id: providerId, open }))
  }
}
