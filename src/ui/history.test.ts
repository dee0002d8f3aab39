/**
 * The page's reading of history records (public/history.js, on provider names)
 * agrees with the service's rule (rules/history-kind.ts, on provider ids) for every
 * kind of record the service writes and every reason a client may choose.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { healthChangeRecord } from '../rules/health.js'
import { checkFailedNotes, cooldownNotes, failoverNotes, hedgeRecord, historyKind, noAlternativeNotes, quotaRecord, rateLimitRecord, refusalRecord, type HistoryFields } from '../rules/history-kind.js'

// A browser module without types: loaded by a computed specifier.
const page: { recordKind: (record: unknown) => string } = await import(['.', 'public', 'history.js'].join('/'))

const named = (record: HistoryFields) => ({
  from_provider: record.from_provider_id === null ? null : `provider-${record.from_provider_id}`,
  to_provider: record.to_provider_id === null ? null : `provider-${record.to_provider_id}`,
  reason: record.reason,
  notes: record.notes
})

describe('the page\'s history kinds', () => {
  it('agree with the service\'s rule', () => {
    const cases: HistoryFields[] = [
      { from_provider_id: null, to_provider_id: 2, reason: 'manual', notes: null },
      { from_provider_id: 1, to_provider_id: 2, reason: 'scheduled', notes: 'degraded: every eligible member was cooling down' },
      // Reasons a client chose to look like health changes.
      { from_provider_id: 1, to_provider_id: 2, reason: 'recovered', notes: null },
      { from_provider_id: null, to_provider_id: 2, reason: 'recovered', notes: null },
      { from_provider_id: 1, to_provider_id: 2, reason: 'cooldown:fake', notes: null },
      { from_provider_id: 1, to_provider_id: 2, reason: 'timeout', notes: failoverNotes(1, false) },
      { from_provider_id: 1, to_provider_id: 2, reason: 'proxy:http_503', notes: failoverNotes(1, true) },
      { from_provider_id: 1, to_provider_id: null, reason: 'timeout', notes: noAlternativeNotes(1) },
      hedgeRecord(1, 2, 250) as HistoryFields,
      // A rotation whose client-chosen reason is "hedge" stays a rotation.
      { from_provider_id: 1, to_provider_id: 2, reason: 'hedge', notes: null },
      { from_provider_id: 1, to_provider_id: null, reason: 'cooldown:x', notes: noAlternativeNotes(1) },
      healthChangeRecord(3, 'healthy', { state: { cooldown_until: '2026-01-01T00:00:30.000Z' }, cooldownStarted: 'consecutive_failures' }, 'HTTP 503') as HistoryFields,
      healthChangeRecord(3, 'healthy', { state: { cooldown_until: '2026-01-01T00:00:30.000Z' }, cooldownStarted: 'rate_limited' }, null) as HistoryFields,
      healthChangeRecord(3, 'probing', { state: { cooldown_until: null }, cooldownStarted: null }, null) as HistoryFields,
      { from_provider_id: 3, to_provider_id: null, reason: 'cooldown:health_check', notes: `${cooldownNotes(3, 'x')}: its health check failed 3 times in a row` },
      { from_provider_id: null, to_provider_id: 3, reason: 'recovered', notes: 'Provider 3 passed its health check 2 times in a row' },
      refusalRecord(3, '/despesas', '2026-01-01T01:00:00.000Z'),
      { from_provider_id: 3, to_provider_id: null, reason: 'check_failed', notes: checkFailedNotes(3, 'timeout') },
      { from_provider_id: 3, to_provider_id: 4, reason: 'check_failed', notes: null },
      quotaRecord(3, 600, 'minute', '2026-01-01T00:01:00.000Z'),
      rateLimitRecord(3, '2026-01-01T00:01:00.000Z', 'x-ratelimit-remaining'),
      { from_provider_id: 3, to_provider_id: null, reason: 'rate_limited', notes: noAlternativeNotes(3) },
      // A failover without an alternative whose client-chosen reason looks like the service's records.
      { from_provider_id: 3, to_provider_id: null, reason: 'refusal:/x', notes: noAlternativeNotes(3) },
      { from_provider_id: 3, to_provider_id: null, reason: 'quota_exhausted', notes: noAlternativeNotes(3) }
    ]
    const kinds = new Set<string>()
    for (const record of cases) {
      const kind = historyKind(record)
      kinds.add(kind)
      assert.equal(page.recordKind(named(record)), kind, JSON.stringify(record))
    }
    assert.deepEqual([...kinds].sort(), ['check_failed', 'cooldown', 'failover', 'failover_failed', 'hedge', 'quota', 'recovered', 'refusal', 'rotation'])
  })
})
