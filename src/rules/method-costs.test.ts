/**
 * What a call costs in credits (rules/method-costs.ts), without a server: an exact
 * name first, then the most specific pattern (the dearer between equals, whatever the
 * order the costs were written in), then `"*"`, else 1; a request that is not a
 * JSON-RPC call costs the default.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { callCost, compileCosts, costOf } from './method-costs.js'

const cost = (costs: Record<string, number>, method: string | undefined) => costOf(compileCosts(costs), method)

describe('costOf', () => {
  it('costs a listed method its own entry, any other "*"\'s, and 1 without a default', () => {
    const costs = { eth_getLogs: 75, eth_call: 26, '*': 10 }
    assert.equal(cost(costs, 'eth_getLogs'), 75)
    assert.equal(cost(costs, 'eth_call'), 26)
    assert.equal(cost(costs, 'eth_chainId'), 10)
    assert.equal(cost({ eth_getLogs: 75 }, 'eth_chainId'), 1)
    assert.equal(cost({}, 'eth_call'), 1)
  })

  it('costs a request that is not a JSON-RPC call the default', () => {
    assert.equal(cost({ eth_call: 26, '*': 10 }, undefined), 10)
    assert.equal(cost({ eth_call: 26 }, undefined), 1)
  })

  it('prefers an exact name, then the most specific pattern, then the dearer of equally specific ones, in any order', () => {
    const costs = { 'trace_*': 300, '*scribe': 5, 'trace_block*': 500, trace_blockNumber: 2, 'debug_*': 400, '*': 1 }
    assert.equal(cost(costs, 'trace_blockNumber'), 2, 'an exact name wins')
    assert.equal(cost(costs, 'trace_blockTraces'), 500, 'the longer pattern wins')
    assert.equal(cost(costs, 'trace_filter'), 300)
    assert.equal(cost(costs, 'eth_subscribe'), 5)
    assert.equal(cost(costs, 'debug_x'), 400)
    assert.equal(cost(costs, 'net_version'), 1)
    // trace_* and *scribe both match trace_subscribe, with as many characters besides `*`: the dearer.
    assert.equal(cost(costs, 'trace_subscribe'), 300)
    const reversed = Object.fromEntries(Object.entries(costs).reverse())
    for (const method of ['trace_blockNumber', 'trace_blockTraces', 'trace_subscribe', 'eth_subscribe']) {
      assert.equal(cost(reversed, method), cost(costs, method), method)
    }
  })

  it('answers the same for a method asked again (remembered), and for more methods than it remembers', () => {
    const compiled = compileCosts({ 'eth_get*': 20, '*': 3 })
    for (let i = 0; i < 600; i++) assert.equal(costOf(compiled, `eth_get${i}`), 20)
    assert.equal(costOf(compiled, 'eth_get1'), 20)
    assert.equal(costOf(compiled, 'net_version'), 3)
  })
})

describe('callCost', () => {
  it('costs 1 at a provider without costs, and reads a stored JSON value once per holder', () => {
    assert.equal(callCost({ method_costs: null }, 'eth_getLogs'), 1)
    const member = { method_costs: JSON.stringify({ eth_getLogs: 75, '*': 10 }) }
    assert.equal(callCost(member, 'eth_getLogs'), 75)
    assert.equal(callCost(member, 'eth_chainId'), 10)
    assert.equal(callCost(member, undefined), 10)
  })
})
