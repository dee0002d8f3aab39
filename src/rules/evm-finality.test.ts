/**
 * The finality table (rules/evm-finality.ts): which answers are kept for good, which
 * only briefly, which never; and which calls a lagging node may not answer.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { blockAbove, blockRefOf, finalityOf, isLagging, needsCurrentHead, quantity } from './evm-finality.js'

const F = 100n

describe('evm finality', () => {
  it('reads block parameters: numbers, tags, EIP-1898 objects, a missing one as latest', () => {
    assert.deepEqual(blockRefOf('eth_getBalance', ['0xabc', '0x10']), { kind: 'number', number: 16n })
    assert.deepEqual(blockRefOf('eth_getBalance', ['0xabc']), { kind: 'tag', tag: 'latest' })
    assert.deepEqual(blockRefOf('eth_call', [{}, 'pending']), { kind: 'tag', tag: 'pending' })
    assert.deepEqual(blockRefOf('eth_call', [{}, { blockHash: '0x12' }]), { kind: 'hash' })
    assert.deepEqual(blockRefOf('eth_call', [{}, { blockNumber: '0x5' }]), { kind: 'number', number: 5n })
    assert.deepEqual(blockRefOf('eth_getStorageAt', ['0xa', '0x0', '0x7']), { kind: 'number', number: 7n })
    assert.deepEqual(blockRefOf('eth_getBlockByHash', ['0x12', false]), { kind: 'hash' })
    assert.deepEqual(blockRefOf('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x9' }]), { kind: 'number', number: 9n })
    assert.deepEqual(blockRefOf('eth_getLogs', [{ fromBlock: '0x1' }]), { kind: 'tag', tag: 'latest' })
    assert.deepEqual(blockRefOf('eth_getLogs', [{ blockHash: '0x12' }]), { kind: 'hash' })
    assert.deepEqual(blockRefOf('eth_blockNumber', []), { kind: 'none' })
    assert.deepEqual(blockRefOf('eth_getBalance', ['0xabc', 'soon']), { kind: 'none' })
    assert.equal(quantity('0x' + 'f'.repeat(17)), undefined)
  })

  it('keeps for good what cannot change, briefly what can, never an error or a null', () => {
    assert.equal(finalityOf('eth_chainId', [], '0x1', undefined), 'final')
    assert.equal(finalityOf('eth_getBlockByHash', ['0x12', false], { number: '0x1' }, undefined), 'final')
    assert.equal(finalityOf('eth_getBlockByHash', ['0x12', false], null, F), 'never')
    assert.equal(finalityOf('eth_getBlockByNumber', ['0x64', false], { number: '0x64' }, F), 'final')
    assert.equal(finalityOf('eth_getBlockByNumber', ['0x65', false], { number: '0x65' }, F), 'recent')
    assert.equal(finalityOf('eth_getBlockByNumber', ['0x1', false], { number: '0x1' }, undefined), 'recent')
    assert.equal(finalityOf('eth_getBlockByNumber', ['latest', false], { number: '0x1' }, F), 'recent')
    assert.equal(finalityOf('eth_getBlockByNumber', ['earliest', false], { number: '0x0' }, F), 'recent')
    assert.equal(finalityOf('eth_getBlockByNumber', ['finalized', false], { number: '0x64' }, F), 'recent')
    assert.equal(finalityOf('eth_getTransactionReceipt', ['0xaa'], { blockNumber: '0x10' }, F), 'final')
    assert.equal(finalityOf('eth_getTransactionReceipt', ['0xaa'], { blockNumber: '0x70' }, F), 'recent')
    assert.equal(finalityOf('eth_getTransactionByHash', ['0xaa'], { blockNumber: null }, F), 'recent')
    assert.equal(finalityOf('eth_getTransactionReceipt', ['0xaa'], null, F), 'never')
    assert.equal(finalityOf('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x20' }], [], F, 0x30n), 'final')
    // Logs from a node whose head is below the range's end, or not known: an empty list may only mean "not there yet".
    assert.equal(finalityOf('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x20' }], [], F, 0x1fn), 'recent')
    assert.equal(finalityOf('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x20' }], [], F), 'recent')
    assert.equal(finalityOf('eth_getLogs', [{ fromBlock: '0x1', toBlock: 'latest' }], [], F), 'recent')
    assert.equal(finalityOf('eth_getLogs', [{ fromBlock: 'latest', toBlock: '0x20' }], [], F), 'recent')
    assert.equal(finalityOf('eth_blockNumber', [], '0x70', F), 'recent')
    assert.equal(finalityOf('eth_call', [{}, '0x20'], '0x', F), 'final')
    assert.equal(finalityOf('eth_call', [{}], '0x', F), 'recent')
  })

  it('keeps a lagging node from calls at the head, above its own, or by hash; not from older blocks', () => {
    assert.equal(needsCurrentHead('eth_blockNumber', [], 5n), true)
    assert.equal(needsCurrentHead('eth_getBalance', ['0xa', 'latest'], 5n), true)
    assert.equal(needsCurrentHead('eth_getBalance', ['0xa'], 5n), true)
    assert.equal(needsCurrentHead('eth_getBalance', ['0xa', 'pending'], 5n), true)
    assert.equal(needsCurrentHead('eth_getBalance', ['0xa', '0x6'], 5n), true)
    assert.equal(needsCurrentHead('eth_getBalance', ['0xa', '0x5'], 5n), false)
    assert.equal(needsCurrentHead('eth_getBalance', ['0xa', 'safe'], 5n), false)
    assert.equal(needsCurrentHead('eth_getBlockByHash', ['0x1', false], 5n), true)
    assert.equal(needsCurrentHead('eth_getTransactionReceipt', ['0x1'], 5n), true)
    assert.equal(blockAbove('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x6' }], 5n), true)
    assert.equal(blockAbove('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x5' }], 5n), false)
    assert.equal(blockAbove('eth_getBalance', ['0xa', 'latest'], 5n), false)
    assert.equal(needsCurrentHead('eth_chainId', [], 5n), false)
    assert.equal(isLagging(10n, 16n, 5), true)
    assert.equal(isLagging(11n, 16n, 5), false)
    assert.equal(isLagging(16n, 16n, 0), false)
  })
})
