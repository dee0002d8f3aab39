/**
 * Reusable answer buffers (reply-buffers.ts): a Buffer is never handed to two
 * answers at once, is reused only after it was given back, and always holds the
 * head with the newest tail.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createReplyBuffers } from './reply-buffers.js'

describe('reply buffers', () => {
  const head = Buffer.from('{"pools":[],"total":0,"timestamp":')
  const tail = (iso: string) => Buffer.from(`"${iso}"}`)

  it('gives answers in flight Buffers of their own', () => {
    const buffers = createReplyBuffers()
    const a = buffers.take(head, tail('2026-01-01T00:00:00.000Z'))
    const b = buffers.take(head, tail('2026-01-01T00:00:00.001Z'))
    assert.notEqual(a, b)
    assert.equal(a.toString(), '{"pools":[],"total":0,"timestamp":"2026-01-01T00:00:00.000Z"}')
    assert.equal(b.toString(), '{"pools":[],"total":0,"timestamp":"2026-01-01T00:00:00.001Z"}')
  })

  it('reuses a Buffer given back, with the new tail written in place', () => {
    const buffers = createReplyBuffers()
    const a = buffers.take(head, tail('2026-01-01T00:00:00.000Z'))
    buffers.release(head, a)
    const again = buffers.take(head, tail('2026-01-01T00:00:09.999Z'))
    assert.equal(again, a)
    assert.equal(again.toString(), '{"pools":[],"total":0,"timestamp":"2026-01-01T00:00:09.999Z"}')
    assert.notEqual(buffers.take(head, tail('2026-01-01T00:00:10.000Z')), a)
  })

  it('never reuses a Buffer of another head, or one whose tail does not fit', () => {
    const buffers = createReplyBuffers()
    const a = buffers.take(head, tail('2026-01-01T00:00:00.000Z'))
    buffers.release(head, a)
    const other = Buffer.from('{"pools":[{}],"total":1,"timestamp":')
    assert.equal(buffers.take(other, tail('2026-01-01T00:00:00.000Z')).toString(), '{"pools":[{}],"total":1,"timestamp":"2026-01-01T00:00:00.000Z"}')
    const longer = buffers.take(head, Buffer.from('"+275760-09-13T00:00:00.000Z"}'))
    assert.notEqual(longer, a)
    assert.equal(longer.toString(), '{"pools":[],"total":0,"timestamp":"+275760-09-13T00:00:00.000Z"}')
    assert.equal(buffers.take(head, tail('2026-01-01T00:00:00.002Z')), a)
  })
})
