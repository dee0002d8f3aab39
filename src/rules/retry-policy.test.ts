/**
 * The retry policy's rules on their own: which deadline a request gets from the
 * pool's and the client's header, how the retry budget counts over its sliding
 * window (the floor, the percent, slots falling out), and the backoff's bounds.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { backoffMs, MIN_RETRIES_PER_WINDOW, requestDeadline, RetryBudget } from './retry-policy.js'

describe('requestDeadline', () => {
  it("takes the pool's deadline, or the client's when it is shorter, never longer", () => {
    assert.deepEqual(requestDeadline(30_000, undefined), { ms: 30_000, shortened: false })
    assert.deepEqual(requestDeadline(30_000, '250'), { ms: 250, shortened: true })
    assert.deepEqual(requestDeadline(30_000, ' 250 '), { ms: 250, shortened: true })
    assert.deepEqual(requestDeadline(30_000, '60000'), { ms: 30_000, shortened: false })
    assert.deepEqual(requestDeadline(30_000, '30000'), { ms: 30_000, shortened: false })
  })

  it('refuses what is not a whole number of milliseconds from 1 to 600,000', () => {
    for (const bad of ['', 'x', '-1', '0', '1.5', '1e3', '600001', '99999999', ['1', '2']]) assert.equal(requestDeadline(30_000, bad), 'invalid', String(bad))
  })
})

describe('RetryBudget', () => {
  it('allows the floor of retries in a quiet window, then the percent of first attempts', () => {
    const budget = new RetryBudget()
    budget.first(0)
    for (let i = 0; i < MIN_RETRIES_PER_WINDOW; i++) {
      assert.equal(budget.allows(20, 0), true)
      budget.spend(0)
    }
    assert.equal(budget.allows(20, 0), false)
    // 20 first attempts at 20 %: 4 retries, one more than the floor.
    for (let i = 1; i < 20; i++) budget.first(100)
    assert.equal(budget.allows(20, 100), true)
    budget.spend(100)
    assert.equal(budget.allows(20, 100), false)
    assert.deepEqual(budget.state(20, 100), { allowed: 4, made: 4, firsts: 20 })
    // 0 % still leaves the floor; 100 % a retry per first attempt.
    assert.equal(budget.state(0, 100).allowed, MIN_RETRIES_PER_WINDOW)
    assert.equal(budget.state(100, 100).allowed, 20)
  })

  it('slides: counts older than the window fall out slot by slot', () => {
    const budget = new RetryBudget()
    budget.first(0)
    for (let i = 0; i < 3; i++) budget.spend(0)
    budget.first(5_000)
    budget.spend(5_000)
    assert.deepEqual(budget.state(20, 9_999), { allowed: 3, made: 4, firsts: 2 })
    // At 10 s the first second's counts are gone, the fifth second's kept.
    assert.deepEqual(budget.state(20, 10_000), { allowed: 3, made: 1, firsts: 1 })
    assert.equal(budget.idle(10_000), false)
    assert.equal(budget.idle(15_000), true)
    // A long silence empties every slot at once.
    budget.first(1_000_000)
    assert.deepEqual(budget.state(20, 1_000_000), { allowed: 3, made: 0, firsts: 1 })
  })
})

describe('backoffMs', () => {
  it('waits nothing before a first attempt or with no base; otherwise within [0, base × 2^(n−2)] and what is left', () => {
    assert.equal(backoffMs(100, 1, () => 0.99, 10_000), 0)
    assert.equal(backoffMs(0, 3, () => 0.99, 10_000), 0)
    assert.equal(backoffMs(100, 2, () => 0, 10_000), 0)
    assert.equal(backoffMs(100, 2, () => 0.9999999, 10_000), 100)
    assert.equal(backoffMs(100, 4, () => 0.9999999, 10_000), 400)
    assert.equal(backoffMs(100, 4, () => 0.5, 10_000), 200)
    assert.equal(backoffMs(10_000, 10, () => 0.9999999, 1_234), 1_234)
    assert.equal(backoffMs(10_000, 10, () => 0.9999999, -5), 0)
  })
})
