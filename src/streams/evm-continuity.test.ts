/**
 * evm-continuity.ts on its own: heads delivered once each and without a gap (the
 * missed blocks fetched, in order, at most MAX_FILL), a reorg's new head passed on;
 * logs delivered once each, a removal passed on, and a failover's fill delivering
 * what was missed in block and index order from the last delivered log's block.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { HeadsContinuity, LogsContinuity, logsFilter, MAX_FILL } from './evm-continuity.js'

const hex = (n: number) => `0x${n.toString(16)}`
const head = (n: number, fork = '') => ({ number: hex(n), hash: `0xh${n}${fork}`, parentHash: `0xh${n - 1}${fork}` })

describe('HeadsContinuity', () => {
  it('delivers each head once and fetches the ones missed before a head, in order, without their bodies', async () => {
    const asked: unknown[][] = []
    const out: Array<{ number: string, hash: string, transactions?: unknown }> = []
    const heads = new HeadsContinuity(async (method, params) => {
      asked.push([method, ...params])
      const n = Number(params[0])
      return { ...head(n), transactions: [], uncles: [], size: '0x1' }
    }, (h) => out.push(h as never))
    for (const n of [1, 2, 2, 5, 4, 6]) await heads.accept(head(n))
    assert.deepEqual(out.map((h) => Number(h.number)), [1, 2, 3, 4, 5, 6])
    assert.deepEqual(asked, [['eth_getBlockByNumber', '0x3', false], ['eth_getBlockByNumber', '0x4', false]])
    assert.ok(out.every((h) => h.transactions === undefined), 'a fetched block goes out as a head')
  })

  it('passes a reorg\'s new head at a number already delivered, and fills at most the newest MAX_FILL of a long gap', async () => {
    const fetched: number[] = []
    const out: string[] = []
    const heads = new HeadsContinuity(async (_m, params) => { fetched.push(Number(params[0])); return head(Number(params[0])) }, (h) => out.push((h as { hash: string }).hash))
    await heads.accept(head(10))
    await heads.accept(head(10, 'b'))
    assert.deepEqual(out, ['0xh10', '0xh10b'])
    await heads.accept(head(11 + MAX_FILL + 5))
    assert.equal(fetched.length, MAX_FILL)
    assert.equal(fetched[0], 11 + 5)
    assert.equal(out.length, 2 + MAX_FILL + 1)
  })

  it('passes anything but a head as it is (a provider\'s null), and a log subscription the same', async () => {
    const out: unknown[] = []
    await new HeadsContinuity(async () => undefined, (h) => out.push(h)).accept(null)
    new LogsContinuity({}, async () => [], (l) => out.push(l), undefined).accept('x')
    assert.deepEqual(out, [null, 'x'])
  })

  it('skips a block the pool could not give and goes on', async () => {
    const out: number[] = []
    const heads = new HeadsContinuity(async (_m, params) => Number(params[0]) === 3 ? undefined : head(Number(params[0])), (h) => out.push(Number((h as { number: string }).number)))
    await heads.accept(head(1))
    await heads.accept(head(5))
    assert.deepEqual(out, [1, 2, 4, 5])
  })
})

describe('LogsContinuity', () => {
  const log = (block: number, index: number, removed = false) => ({ blockNumber: hex(block), blockHash: `0xb${block}`, transactionHash: `0xt${block}`, logIndex: hex(index), removed })

  it('delivers each log once, a removal too, and after a failover fills from the last delivered log\'s block in order', async () => {
    const asked: unknown[] = []
    const out: string[] = []
    const logs = new LogsContinuity({ address: '0xa' }, async (_m, params) => { asked.push(params[0]); return [log(7, 1), log(6, 0), log(5, 1), log(7, 0)] }, (l) => {
      const { blockNumber, logIndex, removed } = l as ReturnType<typeof log>
      out.push(`${Number(blockNumber)}.${Number(logIndex)}${removed ? 'r' : ''}`)
    }, undefined)
    logs.accept(log(5, 0))
    logs.accept(log(5, 1))
    logs.accept(log(5, 1))
    logs.accept(log(5, 1, true))
    await logs.fill()
    assert.deepEqual(asked, [{ address: '0xa', fromBlock: '0x5', toBlock: 'latest' }])
    assert.deepEqual(out, ['5.0', '5.1', '5.1r', '6.0', '7.0', '7.1'])
  })

  it('fills from the block the subscription began at when no log came yet; with neither, asks nothing', async () => {
    const asked: unknown[] = []
    const fetch = async (_m: string, params: unknown[]) => { asked.push(params[0]); return [] }
    await new LogsContinuity({}, fetch, () => {}, undefined).fill()
    assert.deepEqual(asked, [])
    const began = new LogsContinuity({}, fetch, () => {}, undefined)
    began.began(12)
    await began.fill()
    assert.deepEqual(asked, [{ fromBlock: '0xc', toBlock: 'latest' }])
  })

  it('reads a logs subscription\'s filter: address and topics only', () => {
    assert.deepEqual(logsFilter(['logs', { address: '0xa', topics: ['0xt'], fromBlock: '0x1' }]), { address: '0xa', topics: ['0xt'] })
    assert.deepEqual(logsFilter(['logs']), {})
  })
})
