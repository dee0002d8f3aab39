import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { compileMethods, EVERY_METHOD, methodAllowed, type MethodRules } from './rpc-methods.js'

const allowed = (rules: MethodRules | null, method: string) => methodAllowed(compileMethods(rules), method)

describe('methodAllowed', () => {
  it('allows every method without rules, with an empty object, or with an empty deny list', () => {
    for (const rules of [null, {}, { deny: [] }]) {
      for (const method of ['eth_call', 'debug_traceTransaction', 'x']) assert.equal(allowed(rules, method), true, `${JSON.stringify(rules)} ${method}`)
    }
    assert.equal(methodAllowed(EVERY_METHOD, 'anything'), true)
  })

  it('allows only what an allow list matches', () => {
    const rules = { allow: ['eth_*', 'net_version'] }
    assert.equal(allowed(rules, 'eth_call'), true)
    assert.equal(allowed(rules, 'eth_'), true, '* matches no character too')
    assert.equal(allowed(rules, 'net_version'), true)
    assert.equal(allowed(rules, 'net_listening'), false)
    assert.equal(allowed(rules, 'debug_traceTransaction'), false)
    assert.equal(allowed(rules, 'xeth_call'), false, 'a pattern matches the whole name')
  })

  it('refuses what a deny list matches, and deny wins over allow', () => {
    const rules = { allow: ['*'], deny: ['debug_*', 'trace_*', 'eth_sign'] }
    assert.equal(allowed(rules, 'eth_call'), true)
    assert.equal(allowed(rules, 'debug_traceTransaction'), false)
    assert.equal(allowed(rules, 'trace_block'), false)
    assert.equal(allowed(rules, 'eth_sign'), false)
    assert.equal(allowed(rules, 'eth_signTransaction'), true, 'an exact name is not a prefix')
    assert.equal(allowed({ allow: ['eth_call'], deny: ['eth_call'] }, 'eth_call'), false)
  })

  it('matches suffixes, inner wildcards and several stars, case sensitively', () => {
    assert.equal(allowed({ allow: ['*_subscribe'] }, 'eth_subscribe'), true)
    assert.equal(allowed({ allow: ['*_subscribe'] }, 'eth_unsubscribe'), false)
    assert.equal(allowed({ allow: ['*subscribe'] }, 'eth_unsubscribe'), true)
    const inner = { allow: ['eth_get*By*'] }
    assert.equal(allowed(inner, 'eth_getBlockByNumber'), true)
    assert.equal(allowed(inner, 'eth_getBalance'), false)
    assert.equal(allowed({ allow: ['a*b*c'] }, 'abc'), true)
    assert.equal(allowed({ allow: ['a*b*c'] }, 'ac'), false)
    assert.equal(allowed({ allow: ['ab*ba'] }, 'aba'), false, 'the head and the tail may not overlap')
    assert.equal(allowed({ allow: ['a*bc*bc'] }, 'abcbc'), true)
    assert.equal(allowed({ allow: ['a*bc*d'] }, 'abcd'), true)
    assert.equal(allowed({ allow: ['a*bcd*d'] }, 'abcd'), false, 'an inner piece may not run into the tail')
    assert.equal(allowed({ allow: ['**'] }, 'anything'), true)
    assert.equal(allowed({ allow: ['a**b'] }, 'ab'), true)
    assert.equal(allowed({ allow: ['eth_*'] }, 'ETH_call'), false)
  })

  it('stays fast on a long method name against many wildcards (no backtracking)', () => {
    const rules = compileMethods({ allow: Array.from({ length: 64 }, (_, i) => `${'a*'.repeat(40)}b${i}`) })
    const method = 'a'.repeat(100_000)
    const started = performance.now()
    assert.equal(methodAllowed(rules, method), false)
    assert.ok(performance.now() - started < 500)
  })
})
