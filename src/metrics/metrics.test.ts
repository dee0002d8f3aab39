import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { poolWithMembers, rotateTimes } from '../../test/fixtures.js'
import { buildTestApp, sqlite, type TestApp } from '../../test/helpers.js'

/** The value of one sample line, 0 when the series is absent. */
function sample (text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `))
  return line === undefined ? 0 : Number(line.slice(series.length + 1))
}

describe('GET /metrics', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp(sqlite) })
  after(async () => { await t.close() })

  const scrape = async () => {
    const res = await t.app.inject({ method: 'GET', url: '/metrics' })
    assert.equal(res.statusCode, 200)
    assert.match(String(res.headers['content-type']), /^text\/plain/)
    return res.body
  }

  it('counts rotations, failovers, reports, cooldowns, members by health and requests', async () => {
    const { poolId, providers } = await poolWithMembers(t, 'm', ['a', 'b'])
    const before = await scrape()
    await rotateTimes(t, poolId, 3)
    await t.request({ method: 'POST', url: `/api/pools/${poolId}/failover`, payload: { failed_provider_id: providers.a } })
    await t.request({ method: 'POST', url: `/api/pools/${poolId}/report`, payload: { provider_id: providers.b, success: true } })
    await t.request({ method: 'POST', url: `/api/pools/${poolId}/report`, payload: { provider_id: providers.b, success: false, status_code: 429, retry_after_s: 60 } })
    const text = await scrape()
    const delta = (series: string) => sample(text, series) - sample(before, series)

    assert.equal(delta(`sourcepool_rotations_total{pool_id="${poolId}",provider="m-a"}`), 2)
    assert.equal(delta(`sourcepool_rotations_total{pool_id="${poolId}",provider="m-b"}`), 2, 'one by rotate, one by failover')
    assert.equal(delta(`sourcepool_failovers_total{pool_id="${poolId}",failed_provider="m-a"}`), 1)
    assert.equal(delta('sourcepool_reports_total{outcome="success"}'), 1)
    assert.equal(delta('sourcepool_reports_total{outcome="failure"}'), 1)
    assert.equal(delta('sourcepool_cooldowns_started_total{reason="rate_limited"}'), 1)
    assert.equal(sample(text, 'sourcepool_members{health="cooling_down"}'), 1)
    assert.equal(sample(text, 'sourcepool_members{health="healthy"}'), 1)
    assert.equal(delta('sourcepool_http_request_duration_seconds_count{method="POST",route="/api/pools/:pool_id/rotate",status_code="200"}'), 3)
  })
})
