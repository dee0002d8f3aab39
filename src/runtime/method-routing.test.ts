/**
 * The runtime's method routing on a pool's state (no database): which members'
 * providers refuse a method, remembered per read of the pool and bounded; when no
 * member allows a method; and a pool without rules answering with nothing to leave out.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { noMemberAllows, refusersOf } from './method-routing.js'
import type { Member, PoolState } from './runtime-state.js'

const stateOf = (methods: Array<object | null>): PoolState => ({
  members: methods.map((m, i) => ({ id: i + 1, provider_id: 10 + i, enabled: 1, methods: m === null ? null : JSON.stringify(m) }) as unknown as Member)
} as unknown as PoolState)

describe('method routing', () => {
  it('names the providers that do not allow a method, and says when none does', () => {
    const state = stateOf([{ deny: ['debug_*'] }, { allow: ['eth_*'] }, null])
    assert.deepEqual([...refusersOf(state, 'debug_traceTransaction')], [10, 11])
    assert.deepEqual([...refusersOf(state, 'net_version')], [11])
    assert.equal(refusersOf(state, 'eth_call').size, 0)
    assert.equal(noMemberAllows(state, 'debug_traceTransaction'), false, 'the member without rules allows it')
    const narrow = stateOf([{ deny: ['debug_*'] }, { allow: ['eth_*'] }])
    assert.equal(noMemberAllows(narrow, 'debug_traceTransaction'), true)
    assert.equal(noMemberAllows(narrow, 'eth_call'), false)
    assert.equal(noMemberAllows(stateOf([]), 'anything'), false, 'a pool without members keeps its usual answer')
  })

  it('remembers an answer per read of the pool; a new read (a change) is asked afresh', () => {
    const state = stateOf([{ deny: ['a*'] }])
    assert.equal(refusersOf(state, 'ab'), refusersOf(state, 'ab'), 'the same set: remembered')
    const changed = stateOf([{ deny: ['b*'] }])
    assert.equal(refusersOf(changed, 'ab').size, 0)
  })

  it('stays right past what it remembers (made-up names, long names)', () => {
    const state = stateOf([{ allow: ['eth_*'] }, null])
    for (let i = 0; i < 1000; i++) assert.deepEqual([...refusersOf(state, `made_up_${i}`)], [10])
    assert.deepEqual([...refusersOf(state, `eth_${'x'.repeat(10_000)}`)], [])
    assert.deepEqual([...refusersOf(state, 'net_version')], [10])
  })
})
