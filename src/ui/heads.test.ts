/**
 * How the pool page reads an evm member's node head (public/heads.js): unknown, at
 * the pool's highest head, behind, and lagging (left out of calls at the head); only
 * an evm pool's members show one.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'

interface Reading { text: string, behind: string | null, lagging: boolean, title: string }
// A browser module without types: loaded by a computed specifier.
const page: { headReading: (member: unknown, maxLag: number) => Reading, showsHeads: (status: unknown) => boolean } =
  await import(['.', 'public', 'heads.js'].join('/'))

describe('the pool page\'s member heads', () => {
  it('reads a head not known yet as a dash, saying why', () => {
    const reading = page.headReading({ head_block: null, block_lag: null, lagging: false }, 5)
    assert.deepEqual([reading.text, reading.behind, reading.lagging], ['—', null, false])
    assert.match(reading.title, /only while it is used/)
  })

  it('reads a node at the head, one a little behind, and one lagging, marked', () => {
    const at = page.headReading({ head_block: '19000000', block_lag: 0, lagging: false }, 5)
    assert.deepEqual([at.text, at.behind, at.lagging], ['#19,000,000', 'at the head', false])
    const near = page.headReading({ head_block: '18999997', block_lag: 3, lagging: false }, 5)
    assert.deepEqual([near.text, near.behind, near.lagging], ['#18,999,997', '3 behind', false])
    const far = page.headReading({ head_block: '18998000', block_lag: 2000, lagging: true }, 5)
    assert.deepEqual([far.text, far.behind, far.lagging], ['#18,998,000', '2,000 behind', true])
    assert.match(far.title, /^More than 5 blocks behind .*left out of calls at latest/)
  })

  it('shows heads for an evm pool only', () => {
    assert.deepEqual(['evm', 'jsonrpc', 'http', undefined].map((protocol) => page.showsHeads({ policy: { protocol } })), [true, false, false, false])
  })
})
