/**
 * What a rotation history record stands for, read from its stored fields alone, and
 * the records the service writes about a provider (cooldowns, recoveries, refusals,
 * quota windows used up, failed health checks, failovers). One rule for everything that reads the history
 * by kind: the event stream and the per-minute activity counts.
 *
 * Clients choose the `reason` of their rotations and failovers (any text), so a
 * reason alone never makes a record a health change: the service's own records are
 * recognised by their `notes`, which only the service writes, and by the providers
 * they name. A record that chose a provider (`to_provider_id` set) is a rotation,
 * unless it is a member recovering; among rotations, a failover's notes name the
 * failed provider.
 */

export type HistoryKind =
  /** A rotation that chose a provider: rotate (manual, scheduled, any reason). */
  | 'rotation'
  /** A failover that chose another provider: through the API or inside a proxied request. */
  | 'failover'
  /** A proxied request's hedge that won: a second provider, asked while the first was slow, answered first. */
  | 'hedge'
  /** A failover that found no alternative: nothing was chosen (also any record choosing none that is none of the others). */
  | 'failover_failed'
  /** A member started cooling down (`cooldown:<cause>`). */
  | 'cooldown'
  /** A member that was cooling down or probing answered again. */
  | 'recovered'
  /** A provider was found refusing a resource (`refusal:<resource>`). */
  | 'refusal'
  /** A provider used up its quota window: ours (`quota_exhausted`), or its own as it said (`rate_limited`). */
  | 'quota'
  /** A provider's health check failed after passing (or for the first time): the first failure of a streak. */
  | 'check_failed'

/** What the rule reads of a record. */
export interface HistoryFields {
  readonly from_provider_id: number | null
  readonly to_provider_id: number | null
  readonly reason: string
  readonly notes: string | null
}

/** What the service writes for a record of its own (the caller adds the pool and the time). */
export interface ServiceRecord extends HistoryFields {
  readonly success: number
  readonly notes: string
  /** When the state it records ends (a cooldown, a refusal, a quota window), or null. */
  readonly until: string | null
}

/** How a failover's notes start; the SQL count of failovers (activity) matches it too. */
export const FAILOVER_NOTES = 'Failover from failed provider '
/** How a winning hedge's notes start. */
export const HEDGE_NOTES = 'Hedge from slow provider '
/** The reason of a winning hedge's record. */
export const HEDGE = 'hedge'
/** How the notes of the service's records about a provider start (a rotation's are null or `degraded: …`). */
export const PROVIDER_NOTES = 'Provider '
export const RECOVERED = 'recovered'
export const COOLDOWN_PREFIX = 'cooldown:'
export const REFUSAL_PREFIX = 'refusal:'
export const QUOTA_EXHAUSTED = 'quota_exhausted'
export const RATE_LIMITED = 'rate_limited'
export const CHECK_FAILED = 'check_failed'

/** The notes of a failover that chose another provider. */
export function failoverNotes (failedProviderId: number, degraded: boolean): string {
  return `${FAILOVER_NOTES}${failedProviderId}${degraded ? ' (degraded: every eligible member was cooling down)' : ''}`
}

/**
 * The record of a proxied request's hedge that won: `winner`, asked because
 * `slow` had not started answering after the pool's hedge_after_ms, answered
 * first (the slow attempt was called off: no failure of its provider).
 */
export function hedgeRecord (slow: number, winner: number, afterMs: number): ServiceRecord {
  return { from_provider_id: slow, to_provider_id: winner, reason: HEDGE, success: 1, notes: `${HEDGE_NOTES}${slow} (no answer after ${afterMs} ms)`, until: null }
}

/** The notes of a failover that found no alternative. */
export function noAlternativeNotes (failedProviderId: number): string {
  return `${PROVIDER_NOTES}${failedProviderId} failed; no alternative provider was available`
}

/** The opening of a cooldown's notes: `Provider <id> cooling down until <until>` (the writer adds why). */
export function cooldownNotes (providerId: number, until: string | null): string {
  return `${PROVIDER_NOTES}${providerId} cooling down until ${until ?? '?'}`
}

/** The record of a provider found refusing `resource` (HTTP 403, or 401/402 to our credentials: `status`) until `until`, in one of its pools. */
export function refusalRecord (providerId: number, resource: string, until: string, status = 403): ServiceRecord {
  return {
    from_provider_id: providerId,
    to_provider_id: null,
    reason: `${REFUSAL_PREFIX}${resource}`,
    success: 0,
    notes: `${PROVIDER_NOTES}${providerId} refuses ${resource} (HTTP ${status}) until ${until}`,
    until
  }
}

/** The record of a provider whose quota window is used up until `resetsAt`, in one of its pools (a quota in credits says so). */
export function quotaRecord (providerId: number, limit: number, per: string, resetsAt: string, unit?: string): ServiceRecord {
  return {
    from_provider_id: providerId,
    to_provider_id: null,
    reason: QUOTA_EXHAUSTED,
    success: 0,
    notes: `${PROVIDER_NOTES}${providerId} used up its quota of ${limit}${unit === 'credits' ? ' credits' : ''} per ${per} until ${resetsAt}`,
    until: resetsAt
  }
}

/**
 * The record of a provider that said it has no requests left until `until` (its
 * rate-limit headers, `source` naming the one that said so): it is not chosen
 * until then. Not a failure: the provider's own quota window, used up.
 */
export function rateLimitRecord (providerId: number, until: string, source: string | null): ServiceRecord {
  return {
    from_provider_id: providerId,
    to_provider_id: null,
    reason: RATE_LIMITED,
    success: 0,
    notes: `${PROVIDER_NOTES}${providerId} has no requests left until ${until}${source === null ? '' : ` (its ${source})`}`,
    until
  }
}

/** The notes of a provider's first failed health check in a row: `failure` says how it failed. */
export function checkFailedNotes (providerId: number, failure: string): string {
  return `${PROVIDER_NOTES}${providerId} failed its health check (${failure})`
}

/** True when `notes` open as the service's record about `providerId` saying `what`. */
function about (notes: string | null, providerId: number | null, what: string): boolean {
  return providerId !== null && notes !== null && notes.startsWith(`${PROVIDER_NOTES}${providerId} ${what}`)
}

/** What the record stands for. */
export function historyKind (record: HistoryFields): HistoryKind {
  const { from_provider_id: from, to_provider_id: to, reason, notes } = record
  if (to !== null) {
    if (reason === RECOVERED && from === null && (notes ?? '').startsWith(PROVIDER_NOTES)) return 'recovered'
    if (reason === HEDGE && (notes ?? '').startsWith(HEDGE_NOTES)) return 'hedge'
    return (notes ?? '').startsWith(FAILOVER_NOTES) ? 'failover' : 'rotation'
  }
  if (reason.startsWith(COOLDOWN_PREFIX) && about(notes, from, 'cooling down until ')) return 'cooldown'
  if (reason.startsWith(REFUSAL_PREFIX) && about(notes, from, 'refuses ')) return 'refusal'
  if (reason === QUOTA_EXHAUSTED && about(notes, from, 'used up its quota ')) return 'quota'
  if (reason === RATE_LIMITED && about(notes, from, 'has no requests left ')) return 'quota'
  if (reason === CHECK_FAILED && about(notes, from, 'failed its health check ')) return 'check_failed'
  return 'failover_failed'
}

/** True for a record that chose a provider: a rotation, a failover or a hedge (what activity counts as rotations). */
export function isRotation (kind: HistoryKind): boolean {
  return kind === 'rotation' || kind === 'failover' || kind === 'hedge'
}
