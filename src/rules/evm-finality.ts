/**
 * What an `evm` pool's call asks of the chain's history (issue 36 items 5 and 6),
 * read from its method and params alone: which block it is about (a number, a tag
 * such as `latest`, a block hash, or none), so that the cache knows whether its
 * answer can still change and the choice knows whether a lagging node may answer
 * it. Pure: no node is asked; the pool's finalized block comes from the head
 * tracker (proxy/rpc-heads.ts).
 *
 * | answer | stored |
 * |---|---|
 * | `eth_chainId`, `net_version`; a block by hash; a block (or its receipts, state, an `eth_call`) at a number at or below the finalized block; logs of a block hash, or of a range ending at or below it from a node known to have that block; a transaction or receipt found in such a block | for good (`final`) |
 * | anything at `latest`, `pending`, `safe`, `finalized`, `earliest` (it moves on a node that expires history), a number above the finalized block, a transaction not yet in a finalized block, a head-dependent read (`eth_blockNumber`, `eth_gasPrice` …) | for `cache_unfinalized_ms` (`recent`) |
 * | an error, a null or missing result (not found yet) | never |
 */

/** Where a call's block parameter is, by method (a missing one means `latest`, as nodes read it). */
const BLOCK_PARAM: ReadonlyMap<string, number> = new Map([
  ['eth_getBalance', 1], ['eth_getCode', 1], ['eth_getTransactionCount', 1], ['eth_call', 1], ['eth_estimateGas', 1],
  ['eth_getStorageAt', 2], ['eth_getProof', 2],
  ['eth_getBlockByNumber', 0], ['eth_getBlockTransactionCountByNumber', 0], ['eth_getTransactionByBlockNumberAndIndex', 0],
  ['eth_getUncleCountByBlockNumber', 0], ['eth_getUncleByBlockNumberAndIndex', 0], ['eth_getBlockReceipts', 0]
])

/** Calls about a block named by its hash: the block a hash names never changes. */
const BY_BLOCK_HASH: ReadonlySet<string> = new Set([
  'eth_getBlockByHash', 'eth_getBlockTransactionCountByHash', 'eth_getTransactionByBlockHashAndIndex',
  'eth_getUncleByBlockHashAndIndex', 'eth_getUncleCountByBlockHash'
])

/** Calls about a transaction by its hash: final once the block holding it is (the answer says which block). */
const BY_TRANSACTION: ReadonlySet<string> = new Set(['eth_getTransactionByHash', 'eth_getTransactionReceipt'])

/** Answers that never change for a chain. */
const CHAIN_CONSTANTS: ReadonlySet<string> = new Set(['eth_chainId', 'net_version'])

/** The tags a block parameter may hold instead of a number. */
const TAGS: ReadonlySet<string> = new Set(['latest', 'pending', 'safe', 'finalized', 'earliest'])

/** Which block a call is about. */
export type BlockRef =
  | { readonly kind: 'number', readonly number: bigint }
  | { readonly kind: 'tag', readonly tag: string }
  | { readonly kind: 'hash' }
  /** Not about one block: its answer follows the head (`eth_blockNumber`, `eth_gasPrice`), or a method this table does not know. */
  | { readonly kind: 'none' }

const NONE: BlockRef = { kind: 'none' }
const LATEST: BlockRef = { kind: 'tag', tag: 'latest' }
const HASH: BlockRef = { kind: 'hash' }

/** A quantity (`0x…` hex, at most 64 bits' worth of digits written), or undefined. */
export function quantity (value: unknown): bigint | undefined {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{1,16}$/.test(value)) return undefined
  return BigInt(value)
}

/** A block parameter as written: a number, a tag, an EIP-1898 object; anything else is `none` (not understood: never final). */
function blockOf (value: unknown): BlockRef {
  if (value === undefined || value === null) return LATEST
  const number = quantity(value)
  if (number !== undefined) return { kind: 'number', number }
  if (typeof value === 'string') return TAGS.has(value) ? { kind: 'tag', tag: value } : NONE
  if (typeof value === 'object' && !Array.isArray(value)) {
    const { blockHash, blockNumber } = value as { blockHash?: unknown, blockNumber?: unknown }
    if (typeof blockHash === 'string') return HASH
    if (blockNumber !== undefined) return blockOf(blockNumber)
  }
  return NONE
}

/** The block an `eth_getLogs` filter reaches: its block hash, or its `toBlock` (a missing one is `latest`); `none` when its range starts at a tag past it. */
function logsBlock (filter: unknown): BlockRef {
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) return NONE
  const { blockHash, fromBlock, toBlock } = filter as { blockHash?: unknown, fromBlock?: unknown, toBlock?: unknown }
  if (typeof blockHash === 'string') return HASH
  const to = blockOf(toBlock)
  const from = blockOf(fromBlock)
  // A range from a moving tag (`latest` …) to a number is as recent as its start.
  return from.kind === 'tag' && from.tag !== 'earliest' && to.kind === 'number' ? from : to
}

/** Which block `method` with `params` is about (see BlockRef). */
export function blockRefOf (method: string, params: unknown): BlockRef {
  const list = Array.isArray(params) ? params : []
  const at = BLOCK_PARAM.get(method)
  if (at !== undefined) return blockOf(list[at])
  if (BY_BLOCK_HASH.has(method)) return HASH
  if (method === 'eth_getLogs') return logsBlock(list[0])
  return NONE
}

/** How long an answer may be stored: for good, for the pool's `cache_unfinalized_ms`, or not at all. */
export type Finality = 'final' | 'recent' | 'never'

/**
 * How long the answer `result` to `method` with `params` may be kept, given the pool's
 * finalized block (undefined while no node's head is known: nothing numbered is final).
 */
export function finalityOf (method: string, params: unknown, result: unknown, finalized: bigint | undefined, answeredHead?: bigint): Finality {
  if (result === undefined || result === null) return 'never'
  if (CHAIN_CONSTANTS.has(method)) return 'final'
  if (BY_TRANSACTION.has(method)) return atOrBelow(quantity((result as { blockNumber?: unknown }).blockNumber), finalized) ? 'final' : 'recent'
  const block = blockRefOf(method, params)
  switch (block.kind) {
    case 'hash': return 'final'
    // Logs of blocks a node does not have yet come back as an empty list, not as an error: final only from a node known to have them.
    case 'number': return atOrBelow(block.number, finalized) && (method !== 'eth_getLogs' || atOrBelow(block.number, answeredHead)) ? 'final' : 'recent'
    // `earliest` moves on a node that expires its history.
    case 'tag': return 'recent'
    case 'none': return 'recent'
  }
}

function atOrBelow (block: bigint | undefined, finalized: bigint | undefined): boolean {
  return block !== undefined && finalized !== undefined && block <= finalized
}

/**
 * True when a node that is behind may not answer the call: it asks for the head
 * (`latest`, `pending`, or nothing in particular, as `eth_blockNumber` does), for a
 * block above `head`, the node's own, or for a block or transaction by hash (a recent
 * one is not on a node behind: it would answer null). A call about an older block it
 * has, or a chain constant, is any node's to answer.
 */
export function needsCurrentHead (method: string, params: unknown, head: bigint | undefined): boolean {
  if (CHAIN_CONSTANTS.has(method)) return false
  if (BY_TRANSACTION.has(method)) return true
  const block = blockRefOf(method, params)
  switch (block.kind) {
    case 'hash': return true
    case 'number': return head === undefined || block.number > head
    case 'tag': return block.tag === 'latest' || block.tag === 'pending'
    case 'none': return true
  }
}

/** True when the call names a block number above `head`: a node at that head does not have it yet. */
export function blockAbove (method: string, params: unknown, head: bigint): boolean {
  const block = blockRefOf(method, params)
  return block.kind === 'number' && block.number > head
}

/** True when a node at `head` is more than `maxLag` blocks behind `highest`, the pool's highest head. */
export const isLagging = (head: bigint, highest: bigint, maxLag: number): boolean => head + BigInt(maxLag) < highest

/** The same judgement from a lag already counted: `lag` blocks behind the pool's highest head is more than `maxLag`. */
export const isLaggingBy = (lag: number, maxLag: number): boolean => lag > maxLag
