/**
 * Schemas of the activity charts: a pool's minutes (rotations, failovers, each
 * member's latency) and every pool's, columnar (one array per series, oldest
 * minute first), so a chart library plots them as they come.
 */
import { Type, type Static } from 'typebox'
import { Nullable, Timestamp } from '../http/schemas.js'
import { MAX_ACTIVITY_MINUTES } from '../rules/activity.js'

export const ActivityQuery = Type.Object({
  minutes: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_ACTIVITY_MINUTES, default: 60, description: 'whole minutes, ending with the current one (default 60)' }))
})
export type ActivityQueryValue = Static<typeof ActivityQuery>

/**
 * Every pool's activity reads every history record in the window, which on SQLite
 * blocks the process while it runs: at most the hour the overview shows.
 */
export const MAX_OVERVIEW_MINUTES = 60
export const OverviewQuery = Type.Object({
  minutes: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_OVERVIEW_MINUTES, default: 60, description: 'whole minutes, ending with the current one (default and most 60: every pool\'s history in the window is read)' }))
})

const MinuteStarts = Type.Array(Timestamp, { description: 'the start of each minute, oldest first; the last is the current, partial minute' })
const Rotations = Type.Array(Type.Integer(), { description: 'history records that chose a provider (rotations and failovers) per minute' })
const Failovers = Type.Array(Type.Integer(), { description: 'of those, the failovers (through the API or inside proxied requests)' })

export const PoolActivity = Type.Object({
  pool_id: Type.Integer(),
  minutes: Type.Integer(),
  minute_starts: MinuteStarts,
  rotations: Rotations,
  failovers: Failovers,
  latency: Type.Array(Type.Object({
    provider_id: Type.Integer(),
    provider_name: Nullable(Type.String()),
    latency_ms: Type.Array(Nullable(Type.Number()), { description: 'mean latency observed per minute in this pool (reports, proxied attempts, passing health checks); null without a sample' }),
    samples: Type.Array(Type.Integer(), { description: 'latencies observed per minute' })
  }), { description: 'one entry per current member, by member id' })
})
export type PoolActivityValue = Static<typeof PoolActivity>

export const ActivityOverview = Type.Object({
  minutes: Type.Integer(),
  minute_starts: MinuteStarts,
  pools: Type.Array(Type.Object({
    pool_id: Type.Integer(),
    name: Type.String(),
    rotations: Rotations,
    failovers: Failovers
  }), { description: 'every pool, by pool_id' })
})
export type ActivityOverviewValue = Static<typeof ActivityOverview>
