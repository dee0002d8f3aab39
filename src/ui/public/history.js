// Why: what a history record stands for, as the page reads it. The service's rule
// (src/rules/history-kind.ts) reads provider ids; the history API gives names, so
// this is the same rule on what the page has, and a test holds the two together.
// Clients choose a rotation's `reason` freely, so a reason alone never makes a
// record a health change: only the service writes notes starting "Provider " or
// "Failover from failed provider ".

const FAILOVER_NOTES = 'Failover from failed provider '
const HEDGE_NOTES = 'Hedge from slow provider '
const PROVIDER_NOTES = 'Provider '

/** The service's notes about a provider: `Provider <id> <what>…`. */
const about = (notes, what) => new RegExp(`^Provider \\d+ ${what}`).test(notes)

/**
 * rotation, failover (another provider chosen), hedge (a proxied request's second
 * provider, asked while the first was slow, answered first), failover_failed (none was),
 * cooldown (a member started cooling down), recovered, refusal (a provider found
 * refusing a resource), quota (a provider's quota window used up: ours, or its
 * own as it said, `rate_limited`) or check_failed
 * (a provider's health check failed, the first of a streak).
 */
export function recordKind (record) {
  const notes = record.notes ?? ''
  if (record.to_provider !== null) {
    if (record.reason === 'recovered' && record.from_provider === null && notes.startsWith(PROVIDER_NOTES)) return 'recovered'
    if (record.reason === 'hedge' && notes.startsWith(HEDGE_NOTES)) return 'hedge'
    return notes.startsWith(FAILOVER_NOTES) ? 'failover' : 'rotation'
  }
  if (record.reason.startsWith('cooldown:') && about(notes, 'cooling down until ')) return 'cooldown'
  if (record.reason.startsWith('refusal:') && about(notes, 'refuses ')) return 'refusal'
  if (record.reason === 'quota_exhausted' && about(notes, 'used up its quota ')) return 'quota'
  if (record.reason === 'rate_limited' && about(notes, 'has no requests left ')) return 'quota'
  if (record.reason === 'check_failed' && about(notes, 'failed its health check ')) return 'check_failed'
  return 'failover_failed'
}
