import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { seededRandom } from '../../test/fixtures.js'
import { ChoiceIndex, hashScore } from './choice-index.js'
import type { PlanMember } from './plan-rotation.js'
import { indexMembers, planChoice, planRotation } from './plan-rotation.js'
import { STRATEGIES, type RotationState, type Strategy } from './strategies.js'
import type { Candidate } from './strategies.test.js'

// ---------------------------------------------------------------------------
// REFERENCE ORACLE: the choosers as they were before issue 28 (strategies.ts at the
// time), copied unchanged apart from names, run over the eligible members sorted by
// id on every call. The index must make the same choices.
// ---------------------------------------------------------------------------
type RefChooser = (sorted: readonly Candidate[], state: RotationState, random: () => number, key: string | undefined) => { member_id: number, state: RotationState }
const refChose = (chosen: Candidate, state: RotationState) => ({ member_id: chosen.member_id, state: { ...state, last_member_id: chosen.member_id } })
function refNextAfter (sorted: readonly Candidate[], last: number | undefined): Candidate {
  const next = last === undefined ? undefined : sorted.find((c) => c.member_id > last)
  return next ?? (sorted[0] as Candidate)
}
const refRoundRobin: RefChooser = (sorted, state) => refChose(refNextAfter(sorted, state.last_member_id), state)
const refWeighted: RefChooser = (sorted, state) => {
  const weights: Record<string, number> = { ...(state as { weights?: Record<string, number> }).weights }
  let total = 0
  let best: Candidate | undefined
  for (const c of sorted) {
    const current = (weights[c.member_id] ?? 0) + c.weight
    weights[c.member_id] = current
    total += c.weight
    if (best === undefined || current > (weights[best.member_id] as number)) best = c
  }
  const chosen = best as Candidate
  weights[chosen.member_id] = (weights[chosen.member_id] as number) - total
  return { member_id: chosen.member_id, state: { ...state, last_member_id: chosen.member_id, weights } as RotationState }
}
const refPriority: RefChooser = (sorted, state) => {
  const top = Math.max(...sorted.map((c) => c.priority))
  return refRoundRobin(sorted.filter((c) => c.priority === top), state, Math.random, undefined)
}
const refLeastUsed: RefChooser = (sorted, state) => {
  let chosen = sorted[0] as Candidate
  for (const c of sorted) if (c.use_count < chosen.use_count) chosen = c
  return refChose(chosen, state)
}
const refUniform: RefChooser = (sorted, state, random) => {
  const index = Math.min(sorted.length - 1, Math.floor(random() * sorted.length))
  return refChose(sorted[index] as Candidate, state)
}
function refDrawPair (sorted: readonly Candidate[], random: () => number): [Candidate, Candidate] {
  const first = Math.min(sorted.length - 1, Math.floor(random() * sorted.length))
  let second = Math.min(sorted.length - 2, Math.floor(random() * (sorted.length - 1)))
  if (second >= first) second++
  return [sorted[first] as Candidate, sorted[second] as Candidate]
}
const refLeastLatency: RefChooser = (sorted, state, random) => {
  const unmeasured = sorted.filter((c) => c.latency_ms == null)
  if (unmeasured.length > 0) return refRoundRobin(unmeasured, state, random, undefined)
  if (sorted.length === 1 || random() < 0.05) return refUniform(sorted, state, random, undefined)
  const [a, b] = refDrawPair(sorted, random)
  const la = a.latency_ms as number
  const lb = b.latency_ms as number
  return refChose(la < lb || (la === lb && a.member_id < b.member_id) ? a : b, state)
}
const refLeastOutstanding: RefChooser = (sorted, state, random) => {
  if (sorted.length === 1 || sorted.some((c) => c.outstanding === undefined)) return refLeastUsed(sorted, state, random, undefined)
  const [a, b] = refDrawPair(sorted, random)
  const ao = a.outstanding as number
  const bo = b.outstanding as number
  const chosen = ao !== bo ? (ao < bo ? a : b) : a.use_count !== b.use_count ? (a.use_count < b.use_count ? a : b) : (a.member_id < b.member_id ? a : b)
  return refChose(chosen, state)
}
const refConsistentHash: RefChooser = (sorted, state, random, key) => {
  if (key === undefined) return refRoundRobin(sorted, state, random, key)
  let chosen = sorted[0] as Candidate
  let best = hashScore(key, chosen.member_id)
  for (const c of sorted) {
    const score = hashScore(key, c.member_id)
    if (score > best) {
      best = score
      chosen = c
    }
  }
  return refChose(chosen, state)
}
const REFERENCE: Record<Strategy, RefChooser> = {
  round_robin: refRoundRobin,
  weighted: refWeighted,
  priority: refPriority,
  least_used: refLeastUsed,
  random: refUniform,
  least_latency: refLeastLatency,
  least_outstanding: refLeastOutstanding,
  consistent_hash: refConsistentHash
}
// ------------------------------ end of the oracle ------------------------------

type TestMember = PlanMember & { id: number, provider_id: number, provider_name: string, outstanding?: number }

const AT = new Date('2025-01-01T12:00:00.000Z')
const LATER = '2025-01-01T13:00:00.000Z'
const POOL = (strategy: Strategy) => ({ enabled: 1, rotation_strategy: strategy, all_down: 'fail' })

/** `n` members (ids spaced, shuffled), some out: disabled, cooling down, rate limited, quota used up. */
function pool (n: number, withOut: boolean, seed: number): TestMember[] {
  const random = seededRandom(seed)
  const members: TestMember[] = []
  for (let i = 0; i < n; i++) {
    const id = 3 + i * 7
    const out = withOut ? i % 11 : -1
    members.push({
      id,
      provider_id: 1000 + id,
      provider_name: `p${id}`,
      priority: Math.floor(random() * 3),
      weight: 1 + Math.floor(random() * 5),
      use_count: Math.floor(random() * 20),
      latency_ms: i % 17 === 5 ? null : 10 + Math.floor(random() * 200),
      enabled: out === 1 ? 0 : 1,
      cooldown_until: out === 2 || out === 3 ? LATER : null,
      cooldown_reason: out === 3 ? 'rate_limited' : out === 2 ? 'consecutive_failures' : null,
      rate_limit_requests: out === 4 ? 5 : null,
      rate_limit_per: out === 4 ? 'hour' : null,
      quota_window_start: out === 4 ? '2025-01-01T12:00:00.000Z' : null,
      quota_used: out === 4 ? 5 : 0
    })
  }
  return members.sort(() => random() - 0.5)
}

/** The reference's choices: the eligible members (planRotation's candidates) sorted, the old chooser. */
function referenceRun (strategy: Strategy, members: TestMember[], n: number, random: () => number, keyOf: (i: number) => string | undefined, outstanding?: Map<number, number>): number[] {
  let state: RotationState = {}
  const picks: number[] = []
  // Nothing changes eligibility during a run (the clock stands still): the candidates are planned once.
  const { candidates } = planRotation(POOL('round_robin'), members, new Map(), AT, new Set(), {}, random)
  const sorted = candidates.map((m) => ({
    member_id: m.id, priority: m.priority, weight: m.weight, use_count: m.use_count, latency_ms: m.latency_ms, outstanding: outstanding?.get(m.id)
  })).sort((a, b) => a.member_id - b.member_id)
  for (let i = 0; i < n; i++) {
    const choice = REFERENCE[strategy](sorted, state, random, keyOf(i))
    picks.push(choice.member_id)
    state = choice.state
    const chosen = sorted.find((c) => c.member_id === choice.member_id) as { use_count: number }
    chosen.use_count++
  }
  return picks
}

/** The index's choices, through planChoice as rotations and the proxy make them (a use counted in place). */
function indexedRun (strategy: Strategy, members: TestMember[], n: number, random: () => number, keyOf: (i: number) => string | undefined, outstanding?: Map<number, number>): number[] {
  const copies = members.map((m) => ({ ...m }))
  const index = indexMembers(copies, AT)
  let state: RotationState = {}
  const picks: number[] = []
  const options = outstanding === undefined ? {} : { outstanding: (m: TestMember) => outstanding.get(m.id) ?? 0 }
  for (let i = 0; i < n; i++) {
    const plan = planChoice(POOL(strategy), index, new Map(), AT, new Set(), state, random, keyOf(i), options)
    const chosen = plan.chosen?.member as TestMember
    assert.ok(chosen !== undefined)
    picks.push(chosen.id)
    state = plan.state
    index.member(chosen.id)!.use_count++
  }
  return picks
}

const counts = (picks: number[]) => {
  const found = new Map<number, number>()
  for (const p of picks) found.set(p, (found.get(p) ?? 0) + 1)
  return found
}

/** Chi-square of `observed` against `expected` counts over the same ids, under a generous 99.9 % bound. */
function assertSameDistribution (observed: Map<number, number>, expected: Map<number, number>, label: string): void {
  const ids = new Set([...observed.keys(), ...expected.keys()])
  const total = [...expected.values()].reduce((a, b) => a + b, 0)
  let chi = 0
  let cells = 0
  for (const id of ids) {
    const e = expected.get(id) ?? 0
    const o = observed.get(id) ?? 0
    if (e === 0) {
      assert.equal(o, 0, `${label}: member ${id} chosen ${o} times, never by the reference`)
      continue
    }
    chi += (o - e) ** 2 / e
    cells++
  }
  // Two samples of the same law: the statistic doubles; 99.9 % quantile ≈ df + 3.1·sqrt(2·df) + 10.
  const bound = 2 * (cells + 3.1 * Math.sqrt(2 * cells) + 10)
  assert.ok(chi < bound, `${label}: chi-square ${chi.toFixed(1)} over ${cells} members (bound ${bound.toFixed(1)}, ${total} picks)`)
}

const DETERMINISTIC: readonly Strategy[] = ['round_robin', 'priority', 'least_used', 'consistent_hash']
const N = 10_000

describe('choice index against the choosers of before (reference oracle)', () => {
  for (const [size, withOut] of [[500, true], [500, false], [50, true], [7, true], [2, false]] as const) {
    const label = `${size} members${withOut ? ', some out' : ''}`
    const keyOf = (i: number) => `customer-${i % 300}`

    for (const strategy of DETERMINISTIC) {
      it(`${strategy}: the same ${N} choices, ${label}`, () => {
        const members = pool(size, withOut, size + 1)
        const key = strategy === 'consistent_hash' ? keyOf : () => undefined
        assert.deepEqual(indexedRun(strategy, members, N, Math.random, key), referenceRun(strategy, members, N, Math.random, key))
      })
    }

    it(`weighted: over at least ${N} choices each member exactly its weight times per total weight of turns, as smooth WRR; the API's full plan agrees, ${label}`, () => {
      const members = pool(size, withOut, size + 7)
      const { candidates } = planRotation(POOL('round_robin'), members, new Map(), AT, new Set(), {}, Math.random)
      const total = candidates.reduce((sum, m) => sum + m.weight, 0)
      const turns = total * Math.ceil(N / total)
      const picks = indexedRun('weighted', members, turns, Math.random, () => undefined)
      const expected = new Map(candidates.map((m) => [m.id, m.weight * turns / total]))
      assert.deepEqual(counts(picks), expected)
      assert.deepEqual(counts(referenceRun('weighted', members, turns, Math.random, () => undefined)), expected)
      // Every turn, the full plan (explain's, every member assessed) names what the index chose.
      let state: RotationState = {}
      for (const id of picks.slice(0, 2000)) {
        const plan = planRotation(POOL('weighted'), members, new Map(), AT, new Set(), state, Math.random)
        assert.equal(plan.chosen?.member.id, id)
        state = plan.state
      }
    })

    it(`consistent_hash without a key takes turns as round_robin, ${label}`, () => {
      const members = pool(size, withOut, size + 2)
      assert.deepEqual(indexedRun('consistent_hash', members, 500, Math.random, () => undefined), referenceRun('round_robin', members, 500, Math.random, () => undefined))
    })

    it(`random: the same sequence for the same random numbers, ${label}`, () => {
      const members = pool(size, withOut, size + 3)
      assert.deepEqual(indexedRun('random', members, N, seededRandom(9), () => undefined), referenceRun('random', members, N, seededRandom(9), () => undefined))
    })

    it(`least_latency: the same sequence for the same random numbers, ${label}`, () => {
      const members = pool(size, withOut, size + 4).map((m) => ({ ...m, latency_ms: m.latency_ms ?? 50 }))
      assert.deepEqual(indexedRun('least_latency', members, N, seededRandom(10), () => undefined), referenceRun('least_latency', members, N, seededRandom(10), () => undefined))
      // Unmeasured members first, in turn.
      const fresh = pool(size, withOut, size + 5)
      assert.deepEqual(indexedRun('least_latency', fresh, 50, seededRandom(3), () => undefined), referenceRun('least_latency', fresh, 50, seededRandom(3), () => undefined))
    })

    it(`least_outstanding: the same sequence (in flight counted), and least_used without counts, ${label}`, () => {
      const members = pool(size, withOut, size + 6)
      const inFlight = new Map(members.map((m, i) => [m.id, i % 4]))
      assert.deepEqual(indexedRun('least_outstanding', members, N, seededRandom(12), () => undefined, inFlight),
        referenceRun('least_outstanding', members, N, seededRandom(12), () => undefined, inFlight))
      assert.deepEqual(indexedRun('least_outstanding', members, 2000, Math.random, () => undefined), referenceRun('least_used', members, 2000, Math.random, () => undefined))
    })
  }

  it('random and least_latency: the same distribution when members go out unseen (found out when drawn)', () => {
    const members = pool(500, false, 77)
    const copies = members.map((m) => ({ ...m }))
    const index = indexMembers(copies, AT)
    // Out after the index was built, in place (as the proxy's accounting does): the index has not been told.
    for (const m of copies) if (m.id % 5 === 0) m.cooldown_until = LATER
    for (const strategy of ['random', 'least_latency'] as const) {
      const measured = strategy === 'least_latency'
      if (measured) for (const m of copies) m.latency_ms ??= 40
      let state: RotationState = {}
      const random = seededRandom(21)
      const picks: number[] = []
      for (let i = 0; i < N * 3; i++) {
        const plan = planChoice(POOL(strategy), index, new Map(), AT, new Set(), state, random)
        picks.push(plan.chosen?.member.id as number)
        state = plan.state
      }
      const reference = referenceRun(strategy, copies, N * 3, seededRandom(22), () => undefined)
      assert.ok(picks.every((id) => id % 5 !== 0), `${strategy}: never a member out`)
      assertSameDistribution(counts(picks), counts(reference), strategy)
    }
  })

  it('weighted: members gone out unseen are found and left out, the others keep their shares', () => {
    const copies = pool(500, false, 78).map((m) => ({ ...m }))
    const index = indexMembers(copies, AT)
    for (const m of copies) if (m.id % 5 === 0) m.cooldown_until = LATER
    const eligible = copies.filter((m) => m.id % 5 !== 0)
    const total = eligible.reduce((sum, m) => sum + m.weight, 0)
    let state: RotationState = {}
    const picks: number[] = []
    for (let i = 0; i < total * 6; i++) {
      const plan = planChoice(POOL('weighted'), index, new Map(), AT, new Set(), state, Math.random)
      picks.push(plan.chosen?.member.id as number)
      state = plan.state
    }
    assert.ok(picks.every((id) => id % 5 !== 0), 'never a member out')
    // Once every member out has been found, each window of the eligible total is exact.
    const last = counts(picks.slice(-total))
    for (const m of eligible) assert.equal(last.get(m.id), m.weight, `member ${m.id}`)
    // Back: a member whose cooldown ended is chosen again.
    for (const m of copies) m.cooldown_until = null
    const after = new Set<number>()
    for (let i = 0; i < copies.reduce((sum, m) => sum + m.weight, 0); i++) {
      const plan = planChoice(POOL('weighted'), index, new Map(), AT, new Set(), state, Math.random)
      after.add(plan.chosen?.member.id as number)
      state = plan.state
    }
    assert.equal(after.size, copies.length)
  })

  it('weighted: members back after an outage are asked no more (a choice looks at a few members, not at all who were out)', () => {
    const members = Array.from({ length: 500 }, (_, i) => ({ id: i + 1, provider_id: i + 1, priority: 1, weight: 1 + (i % 7), use_count: 0 }))
    const index = new ChoiceIndex(members)
    let down = true
    let asked = 0
    const ctx = { isOut: () => { asked++; return down }, random: Math.random }
    let state: RotationState = {}
    for (let i = 0; i < 3; i++) assert.equal(index.choose('weighted', state, ctx), undefined)
    down = false
    state = index.choose('weighted', state, ctx)?.state ?? state
    asked = 0
    for (let i = 0; i < 100; i++) state = index.choose('weighted', state, ctx)?.state ?? state
    assert.ok(asked <= 100, `${asked} eligibility checks for 100 choices`)
  })

  it('weighted spreads turns in large pools too: within 3 times each member\'s fair spacing', () => {
    const random = seededRandom(8)
    for (const [size, heaviest] of [[50, 1000], [500, 100]] as const) {
      const members = Array.from({ length: size }, (_, i) => ({ id: i + 1, provider_id: i + 1, priority: 1, weight: 1 + Math.floor(random() * heaviest), use_count: 0 }))
      const total = members.reduce((sum, m) => sum + m.weight, 0)
      const index = new ChoiceIndex(members)
      const ctx = { isOut: () => false, random: Math.random }
      const last = new Map<number, number>()
      const first = new Map<number, number>()
      let worst = 0
      let state: RotationState = {}
      for (let t = 0; t < total; t++) {
        const choice = index.choose('weighted', state, ctx)
        assert.ok(choice !== undefined)
        const { id, weight } = choice.member
        const before = last.get(id)
        if (before === undefined) first.set(id, t)
        else worst = Math.max(worst, (t - before) / (total / weight))
        last.set(id, t)
        state = choice.state
      }
      for (const m of members) worst = Math.max(worst, ((first.get(m.id) as number) + total - (last.get(m.id) as number)) / (total / m.weight))
      assert.ok(worst <= 3, `${size} members: worst gap ${worst.toFixed(2)} × the fair spacing`)
    }
  })

  it('leaves out excluded and refusing providers, and plans in full when nobody is eligible', () => {
    const members = pool(50, true, 5)
    const index = indexMembers(members.map((m) => ({ ...m })), AT)
    const excluded = new Set(members.slice(0, 20).map((m) => m.provider_id))
    const refusals = new Map(members.slice(20, 30).map((m) => [m.provider_id, LATER]))
    for (const strategy of STRATEGIES) {
      let state: RotationState = {}
      for (let i = 0; i < 200; i++) {
        const plan = planChoice(POOL(strategy), index, refusals, AT, excluded, state, seededRandom(i))
        const full = planRotation(POOL(strategy), members, refusals, AT, excluded, state, seededRandom(i))
        if (strategy !== 'least_used') assert.equal(plan.chosen?.member.id, full.chosen?.member.id, `${strategy} pick ${i}`)
        state = plan.state
      }
    }
    const everyone = new Set(members.map((m) => m.provider_id))
    const none = planChoice({ ...POOL('random'), all_down: 'soonest' }, index, new Map(), AT, everyone, {}, Math.random)
    assert.equal(none.chosen, undefined)
    const cooling = members.filter((m) => m.cooldown_until !== null && m.cooldown_reason !== 'rate_limited' && m.enabled === 1 && m.rate_limit_requests === null)
    const soonest = planChoice({ ...POOL('round_robin'), all_down: 'soonest' }, index, new Map(), AT, new Set(members.filter((m) => !cooling.includes(m)).map((m) => m.provider_id)), {}, Math.random)
    assert.equal(soonest.degraded, true)
    assert.ok(cooling.some((m) => m.id === soonest.chosen?.member.id))
  })
})
