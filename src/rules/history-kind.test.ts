import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { healthChangeRecord } from './health.js'
import { checkFailedNotes, cooldownNotes, failoverNotes, historyKind, isRotation, noAlternativeNotes, quotaRecord, refusalRecord, type HistoryFields, hedgeRecord } from './history-kind.js'

const record = (over: Partial<HistoryFields>): HistoryFields => ({ from_provider_id: 1, to_provider_id: 2, reason: 'manual', notes: null, ...over })

describe('historyKind', () => {
  it('takes a record that chose a provider for a rotation, whatever its reason', () => {
    assert.equal(historyKind(record({ from_provider_id: null })), 'rotation')
    assert.equal(historyKind(record({ reason: 'scheduled', notes: 'degraded: every eligible member was cooling down' })), 'rotation')
    // Clients choose reasons: none of these makes a rotation a health change.
    for (const reason of ['recovered', 'cooldown:consecutive_failures', 'refusal:/x', 'quota_exhausted']) {
      assert.equal(historyKind(record({ reason })), 'rotation', reason)
      assert.equal(historyKind(record({ reason, from_provider_id: null })), 'rotation', reason)
    }
  })

  it('tells a failover by its notes naming the failed provider, through the API or the proxy', () => {
    assert.equal(historyKind(record({ reason: 'timeout', notes: failoverNotes(1, false) })), 'failover')
    assert.equal(historyKind(record({ reason: 'proxy:http_503', notes: failoverNotes(1, true) })), 'failover')
    assert.equal(historyKind(record({ to_provider_id: null, reason: 'timeout', notes: noAlternativeNotes(1) })), 'failover_failed')
    // A failover without an alternative whose client-chosen reason looks like a health change is still one.
    assert.equal(historyKind(record({ to_provider_id: null, reason: 'cooldown:x', notes: noAlternativeNotes(1) })), 'failover_failed')
  })

  it('knows the health changes the service records, and no others', () => {
    const started = healthChangeRecord(3, 'healthy', { state: { cooldown_until: '2026-01-01T00:00:30.000Z' }, cooldownStarted: 'consecutive_failures' }, 'HTTP 503')
    assert.equal(historyKind(started as HistoryFields), 'cooldown')
    assert.equal(started?.until, '2026-01-01T00:00:30.000Z')
    const recovered = healthChangeRecord(3, 'probing', { state: { cooldown_until: null }, cooldownStarted: null }, null)
    assert.equal(historyKind(recovered as HistoryFields), 'recovered')
    assert.equal(historyKind(record({ from_provider_id: 3, to_provider_id: null, reason: 'cooldown:health_check', notes: `${cooldownNotes(3, 'x')}: its health check failed` })), 'cooldown')
    assert.equal(historyKind(record({ from_provider_id: null, to_provider_id: 3, reason: 'recovered', notes: 'Provider 3 passed its health check 2 times in a row' })), 'recovered')
    assert.equal(historyKind(record({ from_provider_id: 3, to_provider_id: null, reason: 'check_failed', notes: checkFailedNotes(3, 'HTTP 503') })), 'check_failed')
    assert.equal(historyKind(record({ from_provider_id: 3, to_provider_id: null, reason: 'check_failed', notes: noAlternativeNotes(3) })), 'failover_failed')
    assert.equal(historyKind(record({ from_provider_id: 3, reason: 'check_failed', notes: null })), 'rotation')
    // The notes must be about the provider the record names.
    assert.equal(historyKind(record({ from_provider_id: 4, to_provider_id: null, reason: 'cooldown:x', notes: cooldownNotes(3, 'x') })), 'failover_failed')
  })

  it('knows refusals learned and quota windows used up', () => {
    const refusal = refusalRecord(5, '/despesas', '2026-01-01T01:00:00.000Z')
    assert.deepEqual([historyKind(refusal), refusal.reason, refusal.until], ['refusal', 'refusal:/despesas', '2026-01-01T01:00:00.000Z'])
    const quota = quotaRecord(5, 100, 'hour', '2026-01-01T01:00:00.000Z')
    assert.deepEqual([historyKind(quota), quota.reason, quota.until], ['quota', 'quota_exhausted', '2026-01-01T01:00:00.000Z'])
  })

  it('knows a hedge that won by its reason and notes; a client reason alone is a rotation', () => {
    const won = hedgeRecord(3, 4, 150)
    assert.deepEqual([historyKind(won), won.from_provider_id, won.to_provider_id, won.notes], ['hedge', 3, 4, 'Hedge from slow provider 3 (no answer after 150 ms)'])
    assert.equal(historyKind(record({ reason: 'hedge', notes: null })), 'rotation')
  })

  it('counts rotations, failovers and hedges as rotations, nothing else', () => {
    assert.deepEqual(
      (['rotation', 'failover', 'hedge', 'failover_failed', 'cooldown', 'recovered', 'refusal', 'quota'] as const).filter(isRotation),
      ['rotation', 'failover', 'hedge']
    )
  })
})
