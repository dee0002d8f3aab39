import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { seededRandom } from '../../test/fixtures.js'
import { chooseAmong, LATENCY_EXPLORE, parseRotationState, type RotationState, type Strategy } from './strategies.js'

/** What a strategy may look at for one member, named by member_id as the API names members. */
export interface Candidate {
  readonly member_id: number
  readonly priority: number
  readonly weight: number
  readonly use_count: number
  readonly latency_ms?: number | null
  readonly outstanding?: number
}

/** chooseAmong for candidates named by member_id. */
function chooseMember (
  strategy: Strategy, candidates: readonly Candidate[], state: RotationState, random: () => number = Math.random, key?: string
): { member_id: number, state: RotationState } | undefined {
  const choice = chooseAmong(strategy, candidates.map((c) => ({ ...c, id: c.member_id, provider_id: c.member_id })), state, random, key)
  return choice === undefined ? undefined : { member_id: choice.member.id, state: choice.state }
}

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

const count = (picks: number[], id: number) => picks.filter((p) => p === id).length

describe('least_latency', () => {
  it('tries members without a measurement first, in turn', () => {
    const picks = sequence('least_latency', [member(1, { latency_ms: 5 }), member(2, { latency_ms: null }), member(3)], 4, seededRandom(1))
    assert.deepEqual(picks, [2, 3, 2, 3])
  })

  it('prefers the faster member of a pair but never starves the slower one (a pool of two)', () => {
    const picks = sequence('least_latency', [member(1, { latency_ms: 400 }), member(2, { latency_ms: 20 })], 10_000, seededRandom(7))
    // The slower one gets only the uniform share of picks: LATENCY_EXPLORE / 2 of them.
    const slow = count(picks, 1)
    assert.ok(slow > 10_000 * LATENCY_EXPLORE / 2 * 0.7 && slow < 10_000 * LATENCY_EXPLORE / 2 * 1.3, `slow member got ${slow}`)
  })

  it('sends most traffic to the fastest of three, some to the middle one and a little to the slowest', () => {
    const picks = sequence('least_latency', [member(1, { latency_ms: 900 }), member(2, { latency_ms: 40 }), member(3, { latency_ms: 100 })], 10_000, seededRandom(11))
    const [slow, fast, middle] = [count(picks, 1), count(picks, 2), count(picks, 3)]
    // Two distinct of three drawn: the fastest wins 2/3 of draws, the middle 1/3, the slowest none (plus 5% uniform).
    assert.ok(fast > 6_000 && middle > 2_800 && middle < 3_800 && slow > 100 && slow < 300, JSON.stringify({ slow, fast, middle }))
  })

  it('breaks a tie by member_id, and with one candidate picks it', () => {
    const picks = sequence('least_latency', [member(4, { latency_ms: 10 }), member(2, { latency_ms: 10 })], 1_000, () => 0.5)
    assert.deepEqual(new Set(picks), new Set([2]))
    assert.deepEqual(sequence('least_latency', [member(9, { latency_ms: 10 })], 3, seededRandom(3)), [9, 9, 9])
  })
})

describe('least_outstanding', () => {
  it('is least_used where nothing counts requests in flight (the API)', () => {
    assert.deepEqual(sequence('least_outstanding', [member(1, { use_count: 3 }), member(2, { use_count: 1 }), member(3, { use_count: 1 })], 1), [2])
  })

  it('takes the member of a random pair with fewer requests in flight, then the less used, then the lower id', () => {
    const loaded = [member(1, { outstanding: 9 }), member(2, { outstanding: 0 }), member(3, { outstanding: 2 })]
    const picks = sequence('least_outstanding', loaded, 3_000, seededRandom(5))
    // Member 1 loses every pair it is in; member 2 wins every pair it is in (2 of 3 pairs).
    assert.equal(count(picks, 1), 0)
    assert.ok(count(picks, 2) > 1_800 && count(picks, 3) > 800, JSON.stringify([count(picks, 2), count(picks, 3)]))
    assert.deepEqual(sequence('least_outstanding', [member(1, { outstanding: 0, use_count: 4 }), member(2, { outstanding: 0, use_count: 2 })], 1, seededRandom(1)), [2])
    assert.deepEqual(sequence('least_outstanding', [member(1, { outstanding: 0 }), member(2, { outstanding: 0 })], 1, seededRandom(1)), [1])
  })
})

describe('consistent_hash', () => {
  const keys = Array.from({ length: 10_000 }, (_, i) => `customer-${i}`)
  const place = (members: Candidate[]) => keys.map((key) => chooseMember('consistent_hash', members, {}, Math.random, key)?.member_id)

  it('keeps every key on its member, spreads keys evenly, and without a key takes turns', () => {
    const five = [1, 2, 3, 4, 5].map((id) => member(id))
    const first = place(five)
    assert.deepEqual(place([...five].reverse()), first)
    for (const id of [1, 2, 3, 4, 5]) assert.ok(Math.abs(count(first as number[], id) - 2_000) < 200, `member ${id}: ${count(first as number[], id)}`)
    assert.deepEqual(sequence('consistent_hash', five, 6), [1, 2, 3, 4, 5, 1])
  })

  it('moves only the keys of a member that leaves (1/N), and about 1/(N+1) to a member that joins', () => {
    const five = [1, 2, 3, 4, 5].map((id) => member(id))
    const before = place(five)
    const afterLeave = place(five.filter((m) => m.member_id !== 3))
    const moved = keys.filter((_, i) => before[i] !== afterLeave[i]).length
    assert.equal(moved, count(before as number[], 3), 'only the keys of the member that left moved')
    assert.ok(Math.abs(moved / keys.length - 1 / 5) < 0.02, `moved ${moved}`)
    const afterJoin = place([...five, member(6)])
    const joined = keys.filter((_, i) => before[i] !== afterJoin[i])
    assert.ok(joined.every((key) => afterJoin[keys.indexOf(key)] === 6), 'keys only moved to the new member')
    assert.ok(Math.abs(joined.length / keys.length - 1 / 6) < 0.02, `moved ${joined.length}`)
  })
})

describe('chooseMember', () => {
  it('returns undefined when there is no candidate, for every strategy', () => {
    for (const s of ['round_robin', 'weighted', 'priority', 'least_used', 'random', 'least_latency', 'least_outstanding', 'consistent_hash'] as const) {
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

  it('weighted with weights 5,1,1 gives A B A A C A A and repeats', () => {
    const picks = sequence('weighted', [member(1, { weight: 5 }), member(2, { weight: 1 }), member(3, { weight: 1 })], 14)
    assert.deepEqual(picks, [1, 2, 1, 1, 3, 1, 1, 1, 2, 1, 1, 3, 1, 1])
  })

  it('weighted keeps one number as its cursor, below the total weight', () => {
    let state: RotationState = {}
    for (let i = 0; i < 20; i++) {
      state = chooseMember('weighted', [member(1, { weight: 4 }), member(9, { weight: 3 })], state)!.state
      assert.deepEqual(Object.keys(state).sort(), ['last_member_id', 'turn'])
      assert.equal(state.turn, (i + 1) % 7)
    }
    // A cursor left by another pool size, or unreadable, still chooses.
    assert.equal(chooseMember('weighted', [member(1), member(2)], { turn: 10 ** 12 })?.member_id !== undefined, true)
    assert.equal(chooseMember('weighted', [member(1), member(2)], { turn: -3 })?.member_id, 1)
  })

  it('weighted spreads each member\'s turns: never more than 2.5 times its fair spacing apart (smooth WRR: 2)', () => {
    const random = seededRandom(4)
    let worst = 0
    for (let round = 0; round < 400; round++) {
      const weights = Array.from({ length: 2 + Math.floor(random() * 8) }, () => 1 + Math.floor(random() * (random() < 0.5 ? 5 : 40)))
      const total = weights.reduce((a, b) => a + b, 0)
      const picks = sequence('weighted', weights.map((w, i) => member(i + 1, { weight: w })), total)
      weights.forEach((w, i) => {
        const at = picks.flatMap((id, t) => id === i + 1 ? [t] : [])
        assert.equal(at.length, w)
        at.forEach((t, k) => {
          const gap = k + 1 < at.length ? (at[k + 1] as number) - t : (at[0] as number) + total - t
          worst = Math.max(worst, gap / (total / w))
        })
      })
    }
    assert.ok(worst <= 2.5, `worst gap ${worst.toFixed(2)} × the fair spacing`)
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
    for (const s of ['round_robin', 'weighted', 'priority', 'least_used', 'random', 'least_latency', 'least_outstanding', 'consistent_hash'] as const) {
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

  it('parseRotationState drops the per-member weights an earlier version kept', () => {
    assert.deepEqual(parseRotationState('{"last_member_id":3,"weights":{"1":2,"3":-1}}'), { last_member_id: 3 })
  })
})
