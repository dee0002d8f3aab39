/**
 * Provider quotas in fixed windows aligned to the clock (UTC): a provider with
 * `rate_limit` {requests, per} may be handed out `requests` times per window; one
 * with {credits, per} may spend `credits` per window, each call what it costs
 * (rules/method-costs.ts). Both are stored as one limit and its unit.
 */
import { percentOf } from './percent.js'

export const QUOTA_PERIODS = ['second', 'minute', 'hour', 'day'] as const
export type QuotaPeriod = typeof QUOTA_PERIODS[number]

const PERIOD_MS: Record<QuotaPeriod, number> = { second: 1000, minute: 60_000, hour: 3_600_000, day: 86_400_000 }

/** What a provider's quota counts: hand-outs (requests), or credits spent by what each call costs. */
export const QUOTA_UNITS = ['requests', 'credits'] as const
export type QuotaUnit = typeof QUOTA_UNITS[number]

/** What is stored per provider. */
export interface QuotaState {
  /** The window's limit, in `rate_limit_unit` (the column's name is older than credits). */
  readonly rate_limit_requests: number | null
  /** `requests` (also when absent) or `credits`. */
  readonly rate_limit_unit?: string
  readonly rate_limit_per: string | null
  readonly quota_window_start: string | null
  readonly quota_used: number
}

export interface QuotaView {
  readonly used: number
  readonly limit: number
  readonly unit: QuotaUnit
  readonly resets_at: string
  /** Start of the current window: the value the counter is kept under. */
  readonly window_start: string
  readonly exhausted: boolean
}

/** The unit a provider's quota counts in. */
export const quotaUnitOf = (state: Pick<QuotaState, 'rate_limit_unit'>): QuotaUnit => state.rate_limit_unit === 'credits' ? 'credits' : 'requests'

/** The start of the window containing `now`. */
export function windowStart (period: QuotaPeriod, now: Date): Date {
  const ms = PERIOD_MS[period]
  return new Date(Math.floor(now.getTime() / ms) * ms)
}

/** The provider's quota at `now`, or null when it has no rate limit. */
export function quotaAt (state: QuotaState, now: Date): QuotaView | null {
  if (state.rate_limit_requests === null || state.rate_limit_per === null) return null
  const period = state.rate_limit_per as QuotaPeriod
  const start = windowStart(period, now)
  const startIso = start.toISOString()
  const used = state.quota_window_start === startIso ? state.quota_used : 0
  return {
    used,
    limit: state.rate_limit_requests,
    unit: quotaUnitOf(state),
    resets_at: new Date(start.getTime() + PERIOD_MS[period]).toISOString(),
    window_start: startIso,
    exhausted: used >= state.rate_limit_requests
  }
}

/** A quota's use as the original service's `rate_limit` object showed it. */
export interface RateLimitUsage {
  readonly usage: number
  readonly limit: number
  /** used / limit × 100, one decimal. */
  readonly percentage: number
  /** `ok`; `warning` from 80 %; `blocked` from 100 %. */
  readonly status: 'ok' | 'warning' | 'blocked'
}

/** The `rate_limit` object of a quota: its status from the unrounded percentage, as the original decided it. */
export function rateLimitUsage (quota: QuotaView): RateLimitUsage {
  const percent = (quota.used / quota.limit) * 100
  return {
    usage: quota.used,
    limit: quota.limit,
    percentage: percentOf(quota.used, quota.limit, 1),
    status: percent >= 100 ? 'blocked' : percent >= 80 ? 'warning' : 'ok'
  }
}
