import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { activityWindow, foldSample, mergeSamples, minuteOf, minutePositions, type MinuteSample } from './activity.js'

describe('activity windows', () => {
  it('ends with the current minute, oldest first, exactly `minutes` long', () => {
    const window = activityWindow(new Date('2026-11-23T22:41:37.250Z'), 3)
    assert.deepEqual(window.minuteStarts, ['2026-11-23T22:39:00.000Z', '2026-11-23T22:40:00.000Z', '2026-11-23T22:41:00.000Z'])
    assert.equal(window.from, '2026-11-23T22:39:00.000Z')
    assert.equal(window.to, '2026-11-23T22:42:00.000Z')
    assert.equal(activityWindow(new Date('2026-11-23T00:00:00.000Z'), 1440).minuteStarts.length, 1440)
    assert.equal(minutePositions(window).get('2026-11-23T22:40:00.000Z'), 1)
  })

  it('puts an instant in the minute it falls in', () => {
    assert.equal(minuteOf('2026-11-23T22:41:59.999Z'), '2026-11-23T22:41:00.000Z')
    assert.equal(minuteOf(new Date('2026-11-23T22:42:00.000Z')), '2026-11-23T22:42:00.000Z')
  })

  it('adds latencies up per member and minute, and merges batches', () => {
    const pending = new Map<string, MinuteSample>()
    foldSample(pending, 1, '2026-11-23T22:41:01.000Z', 100)
    foldSample(pending, 1, '2026-11-23T22:41:59.000Z', 50)
    foldSample(pending, 1, '2026-11-23T22:42:00.000Z', 10)
    foldSample(pending, 2, '2026-11-23T22:41:30.000Z', 7)
    assert.deepEqual([...pending.values()], [
      { memberId: 1, minute: '2026-11-23T22:41:00.000Z', samples: 2, latencySum: 150 },
      { memberId: 1, minute: '2026-11-23T22:42:00.000Z', samples: 1, latencySum: 10 },
      { memberId: 2, minute: '2026-11-23T22:41:00.000Z', samples: 1, latencySum: 7 }
    ])
    const merged = new Map<string, MinuteSample>()
    mergeSamples(merged, pending)
    mergeSamples(merged, pending)
    assert.deepEqual(merged.get('1|2026-11-23T22:41:00.000Z'), { memberId: 1, minute: '2026-11-23T22:41:00.000Z', samples: 4, latencySum: 300 })
    assert.equal(pending.get('1|2026-11-23T22:41:00.000Z')?.samples, 2, 'the merged-from batch is left as it was')
  })
})
