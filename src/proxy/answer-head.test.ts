import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { answerHead, headerSafe } from './answer-head.js'

describe('answerHead (a stored answer\'s head, built once)', () => {
  const body = Buffer.from('{"a":1}')

  it('keeps the provider\'s headers, says the exact length and the provider, and leaves out what the answer writes itself', () => {
    const stored = { 'content-type': 'application/json', 'content-length': '999', age: '5', 'x-request-id': 'theirs', connection: 'keep-alive', 'x-sourcepool-cache': 'HIT', 'set-cookie': ['a=1', 'b=2'] }
    const head = answerHead(stored, 200, body, 'prov é')
    assert.deepEqual(head.flat, ['content-type', 'application/json', 'content-length', '7', 'set-cookie', ['a=1', 'b=2'], 'x-sourcepool-provider', headerSafe('prov é')])
    assert.equal(head.headers['content-length'], '7')
    assert.equal(head.headers['x-sourcepool-cache'], undefined, 'the service\'s own headers are dropped')
    assert.equal(head.headers.age, '5', 'the object keeps the provider\'s Age for the general path')
    assert.ok(Object.isFrozen(head.headers))
  })

  it('says no length for a 204 or 304 beyond what the provider sent', () => {
    assert.deepEqual(answerHead({ etag: '"x"' }, 304, Buffer.alloc(0), null).flat, ['etag', '"x"', 'x-sourcepool-provider', ''])
  })
})
