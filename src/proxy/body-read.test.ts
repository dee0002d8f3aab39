import assert from 'node:assert/strict'
import { Readable } from 'node:stream'
import { text } from 'node:stream/consumers'
import { describe, it } from 'node:test'
import { bodyOf, readBounded } from './body-read.js'

const chunks = (...parts: string[]) => Readable.from(parts.map((p) => Buffer.from(p)), { objectMode: false })

describe('readBounded', () => {
  it('reads a body within the limit whole', async () => {
    const read = await readBounded(chunks('ab', 'cd'), 4)
    assert.ok(Buffer.isBuffer(read))
    assert.equal(read.toString(), 'abcd')
  })

  it('streams a body past the limit on, every byte, read and unread', async () => {
    const read = await readBounded(chunks('ab', 'cd', 'ef', 'gh'), 3)
    assert.ok(!Buffer.isBuffer(read))
    assert.equal(await text(read), 'abcdefgh')
  })

  it('rejects with the body\'s error', async () => {
    const failing = new Readable({ read () { this.destroy(new Error('reset')) } })
    await assert.rejects(readBounded(failing, 10), /reset/)
  })

  it('hands a Buffer on as a one-chunk body', async () => {
    assert.equal(await text(bodyOf(Buffer.from('{"a":1}'))), '{"a":1}')
  })
})

describe('readBounded, a body that fails after the limit', () => {
  it('passes the error on to the stream that carries it', async () => {
    let sent = 0
    const failing = new Readable({
      read () {
        if (sent++ < 3) this.push(Buffer.from('xx'))
        else this.destroy(new Error('reset'))
      }
    })
    const read = await readBounded(failing, 3)
    assert.ok(!Buffer.isBuffer(read))
    await assert.rejects(text(read), /reset/)
  })
})
