/**
 * The pure rules of upstream batches (rules/jsonrpc-batch.ts): a batch's answer cut
 * into its elements as the provider wrote them (a big number, odd spacing and escaped
 * quotes kept byte for byte), each with its top-level id and no nested one; the scan
 * stopped at the element past the calls sent; one object where a list was due told
 * apart; anything else garbage; and which statuses refuse a batch (or halve it: 413)
 * rather than speak about the provider.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { halvesBatch, idKeyOf, readBatchAnswer, refusesBatch } from './jsonrpc-batch.js'

describe('readBatchAnswer', () => {
  it('cuts a list into its elements\' own text, each with its top-level id', () => {
    const big = '{"jsonrpc":"2.0","result":123456789012345678901234567890,"id":1}'
    const nested = '{ "result" : {"id":"inner","logs":[{"id":7}]} , "id" : "a\\"b" ,"jsonrpc":"2.0"}'
    const text = ` [${big},\n  ${nested} , {"id":null,"error":{"code":-32000,"message":"x } ] \\\\"}}]  `
    const answer = readBatchAnswer(text)
    assert.equal(answer.kind, 'list')
    assert.deepEqual(answer.kind === 'list' ? answer.answers : undefined, [
      { text: big, id: '1' },
      { text: nested, id: idKeyOf('a"b') },
      { text: '{"id":null,"error":{"code":-32000,"message":"x } ] \\\\"}}', id: 'null' }
    ])
  })

  it('reads ids as values: 1.0 is 1, a missing or object id is none', () => {
    const answer = readBatchAnswer('[{"id":1.0,"result":1},{"result":2},{"id":{"x":1},"result":3},{"result":{"id":4}},{"id":5,"result":{"id":"inner"}}]')
    assert.deepEqual(answer.kind === 'list' ? answer.answers.map((a) => a.id) : undefined, [idKeyOf(1), undefined, undefined, undefined, idKeyOf(5)])
    assert.deepEqual(readBatchAnswer('[]'), { kind: 'list', answers: [] })
  })

  it('stops at the element past its bound: a list longer than the calls sent is too many, whatever follows', () => {
    // 200,000 empty objects, then a tail that a full scan would call garbage (a string never closed).
    const flood = `[${Array(200_000).fill('{}').join(',')},{"id":"never closed]`
    assert.deepEqual(readBatchAnswer(flood, 3), { kind: 'too_many' })
    assert.deepEqual(readBatchAnswer(flood), { kind: 'garbage' }, 'unbounded, the scan reads to the end')
    assert.deepEqual(readBatchAnswer('[{"id":1},{"id":2},{"id":3}]', 3).kind, 'list', 'as many elements as calls is a list')
    assert.deepEqual(readBatchAnswer('[{"id":1},{"id":2},{"id":3}]', 2), { kind: 'too_many' })
  })

  it('tells one object where a list was due from garbage', () => {
    assert.deepEqual(readBatchAnswer(' {"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"no batches"}}\n'),
      { kind: 'single', text: '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"no batches"}}' })
    for (const garbage of ['', 'Bad Gateway', '<html></html>', '[1,2]', '["a"]', '[[{}]]', '[{"id":1}', '[{"id":1}]]', '[{"id":"1}]', '[{}][{}]', 'null']) {
      assert.deepEqual(readBatchAnswer(garbage), { kind: 'garbage' }, garbage)
    }
  })
})

describe('refusesBatch', () => {
  it('takes a 4xx about the request or a 501 as a refusal, and leaves credentials, rate limits and other 5xx to each call', () => {
    assert.deepEqual([400, 404, 405, 415, 422, 501].map(refusesBatch), Array(6).fill(true))
    assert.deepEqual([200, 204, 302, 401, 402, 403, 407, 408, 413, 429, 500, 502, 503, 504].map(refusesBatch), Array(14).fill(false))
  })

  it('halves a list answered 413 (too large) rather than taking it for a refusal', () => {
    assert.deepEqual([413, 400, 501, 502].map(halvesBatch), [true, false, false, false])
  })
})
