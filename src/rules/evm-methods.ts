/**
 * The Ethereum JSON-RPC method table an `evm` pool reads (issue 36): which calls
 * send a transaction (sent once), which are reads whose identical concurrent calls
 * may share one upstream call, and which answers can never change. Pure.
 */

/** Calls that send a transaction: sent once, moved on only when they never reached a provider. */
const WRITES: ReadonlySet<string> = new Set(['eth_sendRawTransaction', 'eth_sendTransaction'])

/** Reads outside the `eth_get…` family that ask the chain, not the node's own state. */
const READS: ReadonlySet<string> = new Set([
  'eth_call', 'eth_chainId', 'net_version', 'eth_blockNumber', 'eth_gasPrice', 'eth_estimateGas', 'eth_feeHistory',
  'eth_maxPriorityFeePerGas', 'eth_blobBaseFee', 'eth_syncing', 'web3_clientVersion'
])

/** `eth_get…` calls that read a node's own filter (stateful per node; `eth_getFilterChanges` even consumes it). */
const NODE_STATE: ReadonlySet<string> = new Set(['eth_getFilterChanges', 'eth_getFilterLogs'])

/** Answers that never change for a chain. */
const IMMUTABLE: ReadonlySet<string> = new Set(['eth_chainId', 'net_version'])

/** True for a call that sends a transaction. */
export const isWrite = (method: string): boolean => WRITES.has(method)

/** True for a read whose identical concurrent calls may share one upstream call. */
export const isCoalescible = (method: string): boolean =>
  READS.has(method) || (method.startsWith('eth_get') && !NODE_STATE.has(method))

/** True for a call whose answer never changes (kept for good when the pool's cache is on). */
export const isImmutable = (method: string): boolean => IMMUTABLE.has(method)
