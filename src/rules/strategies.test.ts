import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { chooseMember, parseRotationState, pruneRotationState, type Candidate, type RotationState, type Strategy } from './strategies.js'

function member (id: number, over: Partial<Candidate> = {}): Candidate {
  return { member_id: id, priority: 1, weight: 1, use_count: 0, ...over }
}

/** Runs `n` picks, feeding each state into the next, and returns the chosen ids. */
function sequence (strategy: Strategy, candidates: Candidate[], n: number, random?: () => number): number[] {
  let state: RotationState = {}
  const picks: number[] = []
  for (let i = 0; i < n; i++) {
    const choice = chooseMember(strategy, candidates, state, random)
    assert.ok(choice)
    picks.push(choice.member_id)
    state = choice.state
  }
  return picks
}

describe('chooseMember', () => {
  it('returns undefined when there is no candidate, for every strategy', () => {
    for (const s of ['round_robin', 'weighted', 'priority', 'least_used', 'random'] as const) {
      assert.equal(chooseMember(s, [], {}), undefined)
    }
  })

  it('round_robin cycles by member_id whatever the input order', () => {
    assert.deepEqual(sequence('round_robin', [member(3), member(1), member(2)], 7), [1, 2, 3, 1, 2, 3, 1])
  })

  it('round_robin continues after the stored cursor and wraps when the cursor member is gone', () => {
    assert.equal(chooseMember('round_robin', [member(1), member(5), member(9)], { last_member_id: 5 })?.member_id, 9)
    assert.equal(chooseMember('round_robin', [member(1), member(5)], { last_member_id: 7 })?.member_id, 1)
  })

  it('weighted with weights 5,1,1 gives A A B A C A A and repeats', () => {
    const picks = sequence('weighted', [member(1, { weight: 5 }), member(2, { weight: 1 }), member(3, { weight: 1 })], 14)
    assert.deepEqual(picks, [1, 1, 2, 1, 3, 1, 1, 1, 1, 2, 1, 3, 1, 1])
  })

  it('weighted chooses each member exactly weight times in any window of sum(weights)', () => {
    const candidates = [member(1, { weight: 3 }), member(2, { weight: 2 }), member(4, { weight: 4 })]
    const picks = sequence('weighted', candidates, 9 * 5)
    for (let start = 0; start + 9 <= picks.length; start++) {
      const window = picks.slice(start, start + 9)
      for (const c of candidates) assert.equal(window.filter((id) => id === c.member_id).length, c.weight)
    }
  })

  it('priority picks the highest number and rotates among ties', () => {
    const candidates = [member(1, { priority: 1 }), member(2, { priority: 5 }), member(3, { priority: 5 })]
    assert.deepEqual(sequence('priority', candidates, 4), [2, 3, 2, 3])
  })

  it('least_used picks the smallest use_count, ties by member_id', () => {
    assert.equal(chooseMember('least_used', [member(4, { use_count: 2 }), member(2, { use_count: 1 }), member(3, { use_count: 1 })], {})?.member_id, 2)
  })

  it('random maps the random number uniformly onto the sorted candidates', () => {
    const candidates = [member(7), member(3), member(5)]
    assert.equal(chooseMember('random', candidates, {}, () => 0)?.member_id, 3)
    assert.equal(chooseMember('random', candidates, {}, () => 0.5)?.member_id, 5)
    assert.equal(chooseMember('random', candidates, {}, () => 0.9999)?.member_id, 7)
  })

  it('never chooses a member that is not a candidate (a disabled one is simply absent)', () => {
    for (const s of ['round_robin', 'weighted', 'priority', 'least_used', 'random'] as const) {
      assert.ok(sequence(s, [member(2), member(4)], 10).every((id) => id === 2 || id === 4))
    }
  })
})

describe('rotation state helpers', () => {
  it('parseRotationState reads stored JSON and starts afresh on garbage', () => {
    assert.deepEqual(parseRotationState('{"last_member_id":3}'), { last_member_id: 3 })
    assert.deepEqual(parseRotationState('not json'), {})
    assert.deepEqual(parseRotationState('[1]'), {})
    assert.deepEqual(parseRotationState(null), {})
  })

  it('pruneRotationState drops weights of members that are gone', () => {
    assert.deepEqual(pruneRotationState({ weights: { 1: 2, 2: -1 } }, [1]), { weights: { 1: 2 } })
  })
})
