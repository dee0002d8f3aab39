/**
 * Percentages written as the original service's Python `round` writes them
 * (expected values printed by Python 3.11's `round`).
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { percentOf, roundLikePython } from './percent.js'

describe('roundLikePython', () => {
  it('rounds an exact tie to the even digit, as Python does', () => {
    assert.equal(roundLikePython(3.125, 2), 3.12)
    assert.equal(roundLikePython(0.125, 2), 0.12)
    assert.equal(roundLikePython(6.25, 1), 6.2)
    assert.equal(roundLikePython(0.25, 1), 0.2)
    assert.equal(roundLikePython(2.5, 0), 2)
    assert.equal(roundLikePython(1.5, 0), 2)
    assert.equal(roundLikePython(-3.125, 2), -3.12)
  })

  it('rounds what only looks like a tie by its exact binary value', () => {
    assert.equal(roundLikePython(2.675, 2), 2.67) // 2.67499999…
    assert.equal(roundLikePython(0.05, 1), 0.1) // 0.05000000000000000277…
    assert.equal(roundLikePython(0.15, 1), 0.1) // 0.1499999999999999944…
    assert.equal(roundLikePython(99.995, 2), 100)
  })
})

describe('percentOf', () => {
  it('is 0 for nothing out of nothing, and two or one decimals otherwise', () => {
    assert.equal(percentOf(0, 0, 2), 0)
    assert.equal(percentOf(0, 3, 2), 0)
    assert.equal(percentOf(1, 3, 2), 33.33)
    assert.equal(percentOf(2, 3, 2), 66.67)
    assert.equal(percentOf(3, 3, 2), 100)
    assert.equal(percentOf(1, 32, 2), 3.12)
    assert.equal(percentOf(1, 16, 1), 6.2)
    assert.equal(percentOf(8, 10, 1), 80)
    assert.equal(percentOf(2, 7, 1), 28.6)
  })
})
