import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { canonicalParams, errorAnswer, INVALID_REQUEST, MAX_BATCH_CALLS, PARSE_ERROR, parseBody } from './jsonrpc.js'
import { rpcVerdict } from './jsonrpc-errors.js'
import { isCoalescible, isWrite, saysKnownTransaction, transactionHash } from './evm-methods.js'

describe('parseBody', () => {
  it('reads one call, with or without params and id', () => {
    assert.deepEqual(parseBody('{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}'), { kind: 'call', call: { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber' } })
    assert.equal(parseBody(Buffer.from('{"jsonrpc":"2.0","method":"eth_subscribe","params":["newHeads"]}')).kind, 'call')
    assert.equal(parseBody('{"jsonrpc":"2.0","id":"a","method":"m","params":{"x":1}}').kind, 'call')
  })

  it('reads a batch of valid calls', () => {
    const parsed = parseBody('[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":2,"method":"b"}]')
    assert.equal(parsed.kind, 'batch')
    assert.equal(parsed.kind === 'batch' && parsed.calls.length, 2)
  })

  it('answers -32700 to a body that is not JSON, an empty body included', () => {
    for (const body of ['{bad', '', undefined, Buffer.from([0xff, 0xfe])]) assert.deepEqual(parseBody(body), { kind: 'invalid', error: PARSE_ERROR })
  })

  it('answers -32600 to JSON that is not a request', () => {
    const invalid = [
      '1', '"x"', 'null', '{}', '[]', '[1]',
      '{"jsonrpc":"1.0","id":1,"method":"a"}',
      '{"jsonrpc":"2.0","id":1}',
      '{"jsonrpc":"2.0","id":1,"method":""}',
      '{"jsonrpc":"2.0","id":1,"method":5}',
      '{"jsonrpc":"2.0","id":1,"method":"a","params":"x"}',
      '{"jsonrpc":"2.0","id":{},"method":"a"}',
      '[{"jsonrpc":"2.0","id":1,"method":"a"},{"id":2}]',
      JSON.stringify(Array.from({ length: MAX_BATCH_CALLS + 1 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'a' })))
    ]
    for (const body of invalid) assert.deepEqual(parseBody(body), { kind: 'invalid', error: INVALID_REQUEST }, body.slice(0, 60))
  })

  it('writes the error answer with a null id', () => {
    assert.deepEqual(JSON.parse(errorAnswer(PARSE_ERROR)), { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } })
  })
})

describe('rpcVerdict: message first, then code', () => {
  const cases: Array<[number | undefined, string, string]> = [
    [-32005, 'limit exceeded', 'rate_limited'],
    [-32005, 'query returned more than 10000 results', 'caller'],
    [-32005, '', 'rate_limited'],
    [-32029, 'whatever', 'rate_limited'],
    [-32000, 'Your app has exceeded its compute units per second capacity', 'rate_limited'],
    [429, 'Too Many Requests', 'rate_limited'],
    [-32000, 'daily request count exceeded, request rate limited', 'rate_limited'],
    [-32601, 'the method eth_foo does not exist/is not available', 'unsupported'],
    [-32700, 'The method nope does not exist/is not available', 'unsupported'],
    [-32601, '', 'unsupported'],
    [-32000, 'trace_block is not supported', 'unsupported'],
    [-32000, 'header not found', 'missing_state'],
    [-32000, 'missing trie node 4f3a… (path )', 'missing_state'],
    [-32000, 'unknown block', 'missing_state'],
    [3, 'execution reverted: not owner', 'caller'],
    [3, 'execution reverted: Max mint limit exceeded', 'caller'],
    [-32000, 'execution reverted: operation not supported', 'caller'],
    [-32000, 'transaction type not supported', 'server'],
    [-32000, 'insufficient funds for gas * price + value', 'caller'],
    [-32000, 'nonce too low', 'caller'],
    [-32000, 'already known', 'caller'],
    [-32602, 'invalid argument 0: hex string without 0x prefix', 'caller'],
    [-32603, 'internal error', 'server'],
    [-32000, 'something went wrong', 'server'],
    [undefined, '', 'server']
  ]
  for (const [code, message, verdict] of cases) {
    it(`${String(code)} "${message}" → ${verdict}`, () => { assert.equal(rpcVerdict({ code, message }), verdict) })
  }
  it('a missing error object is a server failure', () => { assert.equal(rpcVerdict(null), 'server') })
})

describe('canonicalParams', () => {
  it('reads the same for calls that ask the same thing', () => {
    assert.equal(canonicalParams(['0xAB', { b: 1, a: '0xCd' }]), canonicalParams(['0xab', { a: '0xcd', b: 1 }]))
  })
  it('tells apart what nodes tell apart: a leading zero, another number, a tag', () => {
    assert.notEqual(canonicalParams(['0x0a']), canonicalParams(['0xa']))
    assert.notEqual(canonicalParams(['0x10']), canonicalParams(['0x1']))
    assert.notEqual(canonicalParams(['latest']), canonicalParams(['0x1']))
  })
  it('shares no call whose params nest too deep', () => {
    let deep: unknown = 1
    for (let i = 0; i < 50_000; i++) deep = [deep]
    assert.equal(canonicalParams(deep), undefined)
  })
})

describe('evm methods', () => {
  it('hashes a signed transaction as nodes do (Keccak-256 of its bytes)', () => {
    // keccak256(0x) and keccak256(0x00), the well-known values.
    assert.equal(transactionHash('0x'), undefined)
    assert.equal(transactionHash('0x00'), '0xbc36789e7a1e281436464229828f817d6612f7b477d66591ff96a9e064bcc98a')
    assert.equal(transactionHash('not hex'), undefined)
    assert.equal(transactionHash('0x0'), undefined, 'odd digits are not bytes')
  })
  it('reads "already known" and its kin as a transaction the node has', () => {
    for (const message of ['already known', 'known transaction: 0xabc', 'Transaction already imported', 'transaction already exists']) assert.ok(saysKnownTransaction(message), message)
    for (const message of ['nonce too low', 'insufficient funds', 'unknown transaction type']) assert.ok(!saysKnownTransaction(message), message)
  })
  it('tells reads that may share an upstream call from writes and filters', () => {
    assert.deepEqual(['eth_getBalance', 'eth_call', 'eth_chainId', 'eth_getFilterChanges', 'eth_sendRawTransaction', 'eth_subscribe'].map(isCoalescible), [true, true, true, false, false, false])
    assert.deepEqual(['eth_sendRawTransaction', 'eth_call'].map(isWrite), [true, false])
  })
})
