/**
 * How list answers go out (reply-buffers.ts): a reusable Buffer is never handed
 * to two answers at once, is reused only after it was given back, and always
 * holds the body with the newest tail; a large body streams its own pieces, the
 * same Buffers for every request, with the tail after them.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createReplyBuffers, piecesStream } from './reply-buffers.js'
import type { ListBody } from './read-model.js'

const bodyOf = (...texts: string[]): ListBody => {
  const pieces = texts.map((text) => Buffer.from(text))
  return { pieces, length: pieces.reduce((sum, piece) => sum + piece.length, 0) }
}

describe('reply buffers', () => {
  const body = bodyOf('{"pools":[', '],"total":0,"timestamp":')
  const tail = (iso: string) => Buffer.from(`"${iso}"}`)

  it('gives answers in flight Buffers of their own', () => {
    const buffers = createReplyBuffers()
    const a = buffers.take(body, tail('2026-01-01T00:00:00.000Z'))
    const b = buffers.take(body, tail('2026-01-01T00:00:00.001Z'))
    assert.notEqual(a, b)
    assert.equal(a.toString(), '{"pools":[],"total":0,"timestamp":"2026-01-01T00:00:00.000Z"}')
    assert.equal(b.toString(), '{"pools":[],"total":0,"timestamp":"2026-01-01T00:00:00.001Z"}')
  })

  it('reuses a Buffer given back, with the new tail written in place', () => {
    const buffers = createReplyBuffers()
    const a = buffers.take(body, tail('2026-01-01T00:00:00.000Z'))
    buffers.release(body, a)
    const again = buffers.take(body, tail('2026-01-01T00:00:09.999Z'))
    assert.equal(again, a)
    assert.equal(again.toString(), '{"pools":[],"total":0,"timestamp":"2026-01-01T00:00:09.999Z"}')
    assert.notEqual(buffers.take(body, tail('2026-01-01T00:00:10.000Z')), a)
  })

  it('never reuses a Buffer of another body, or one whose tail does not fit', () => {
    const buffers = createReplyBuffers()
    const a = buffers.take(body, tail('2026-01-01T00:00:00.000Z'))
    buffers.release(body, a)
    const other = bodyOf('{"pools":[{}],"total":1,"timestamp":')
    assert.equal(buffers.take(other, tail('2026-01-01T00:00:00.000Z')).toString(), '{"pools":[{}],"total":1,"timestamp":"2026-01-01T00:00:00.000Z"}')
    const longer = buffers.take(body, Buffer.from('"+275760-09-13T00:00:00.000Z"}'))
    assert.notEqual(longer, a)
    assert.equal(longer.toString(), '{"pools":[],"total":0,"timestamp":"+275760-09-13T00:00:00.000Z"}')
    assert.equal(buffers.take(body, tail('2026-01-01T00:00:00.002Z')), a)
  })

  it('streams a body as its own pieces, then the tail, never copying them', async () => {
    const large = bodyOf('{"pools":[', '{"a":1}', ',', '{"b":2}', '],"total":2,"timestamp":')
    const sent: Buffer[] = []
    // Flowing, as piped to a response.
    const stream = piecesStream(large, tail('2026-01-01T00:00:00.000Z'))
    stream.on('data', (chunk: Buffer) => { sent.push(chunk) })
    await new Promise((resolve) => stream.once('end', resolve))
    assert.equal(Buffer.concat(sent).toString(), '{"pools":[{"a":1},{"b":2}],"total":2,"timestamp":"2026-01-01T00:00:00.000Z"}')
    large.pieces.forEach((piece, i) => { assert.equal(sent[i], piece, `piece ${i} is sent as the body's own Buffer`) })
  })
})
