/**
 * The two forms of a pool's `ws_replay` (rules/stream-settings.ts): each setting the
 * API takes is stored as text and read back as it was given, a count as a number;
 * stored text this service never writes reads as the default; the defaults lie
 * within their bounds.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MAX_REPLAY_MESSAGES, STREAM_BOUNDS, STREAM_DEFAULTS, shownReplay, storedReplay, type Replay } from './stream-settings.js'

describe('ws_replay', () => {
  it('is stored as text and read back as given, a count as a number', () => {
    const given: Replay[] = ['none', 'first_second', 0, 1, 42, MAX_REPLAY_MESSAGES]
    assert.deepEqual(given.map(storedReplay), ['none', 'first_second', '0', '1', '42', '100'])
    assert.deepEqual(given.map((replay) => shownReplay(storedReplay(replay))), given)
  })

  it('reads text it never writes as the default, first_second', () => {
    for (const text of ['', 'all', 'None', '101', '007', '-1', '1.5', ' 3']) assert.equal(shownReplay(text), 'first_second', JSON.stringify(text))
  })
})

describe('stream settings', () => {
  it('have defaults within their bounds', () => {
    for (const [field, { minimum, maximum }] of Object.entries(STREAM_BOUNDS)) {
      const value = STREAM_DEFAULTS[field as keyof typeof STREAM_BOUNDS]
      assert.ok(minimum <= value && value <= maximum, field)
    }
  })
})
