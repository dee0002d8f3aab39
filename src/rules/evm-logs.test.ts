import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { blockRef, halves, hexBlock, logsAsk, rangeCount, rangeFilter, refusedAsTooLarge, splitRange } from './evm-logs.js'

describe('logsAsk', () => {
  it('reads a filter\'s range: hex numbers, earliest as 0, head tags as they are, a missing end as latest', () => {
    assert.deepEqual(logsAsk([{ fromBlock: '0x10', toBlock: '0x1F', address: '0xab' }]), { filter: { fromBlock: '0x10', toBlock: '0x1F', address: '0xab' }, from: 16, to: 31 })
    assert.deepEqual(logsAsk([{ fromBlock: 'earliest', toBlock: 'finalized' }])?.from, 0)
    assert.deepEqual(logsAsk([{ fromBlock: 'earliest', toBlock: 'finalized' }])?.to, 'finalized')
    assert.deepEqual(logsAsk([{ fromBlock: '0x1' }])?.to, 'latest')
    assert.deepEqual(logsAsk([{}])?.from, 'latest')
  })

  it('leaves out what is never split: a blockHash filter, a pending end, an unknown block, params that are not one filter', () => {
    for (const params of [
      [{ blockHash: '0xabc' }], [{ fromBlock: '0x1', toBlock: 'pending' }], [{ fromBlock: 'pending' }], [{ fromBlock: '0x1', toBlock: 12 }],
      [{ fromBlock: '0xzz' }], [{ fromBlock: '0x12345678901234' }], [], [{}, {}], [null], ['x'], [[]], { fromBlock: '0x1' }, undefined
    ]) assert.equal(logsAsk(params), undefined, JSON.stringify(params))
  })
})

describe('ranges', () => {
  it('splits a range into consecutive ranges of the size, in block order, the last one shorter', () => {
    assert.deepEqual(splitRange(1, 13, 4), [[1, 4], [5, 8], [9, 12], [13, 13]])
    assert.deepEqual(splitRange(0, 7, 4), [[0, 3], [4, 7]])
    assert.equal(rangeCount(1, 13, 4), 4)
    assert.equal(rangeCount(0, 999_999, 1000), 1000)
  })

  it('halves a range, the lower half first, and writes a range into the filter as JSON-RPC hex', () => {
    assert.deepEqual(halves(0, 7), [[0, 3], [4, 7]])
    assert.deepEqual(halves(4, 6), [[4, 5], [6, 6]])
    assert.deepEqual(halves(8, 9), [[8, 8], [9, 9]])
    assert.deepEqual(rangeFilter({ fromBlock: 'earliest', topics: [null] }, 10, 255), { fromBlock: '0xa', toBlock: '0xff', topics: [null] })
    assert.equal(hexBlock(0), '0x0')
    assert.equal(blockRef('0x00a'), 10)
  })

  it('knows a provider\'s too-large refusals from its other errors', () => {
    for (const message of ['query returned more than 10000 results', 'block range is too wide', 'exceed maximum block range: 5000', 'Log response size exceeded.']) {
      assert.equal(refusedAsTooLarge({ code: -32005, message }), true, message)
    }
    for (const error of [{ code: -32005, message: 'limit exceeded' }, { code: -32602, message: 'invalid argument' }, null, 'query returned more than', {}]) {
      assert.equal(refusedAsTooLarge(error), false, JSON.stringify(error))
    }
  })
})
