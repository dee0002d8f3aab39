/**
 * The Ethereum JSON-RPC method table an `evm` pool reads (issue 36): which calls
 * send a transaction (sent once), which are reads whose identical concurrent calls
 * may share one upstream call, and which answers can never change; and a
 * transaction's hash, for a node that says it has it already. Pure.
 */
import { keccak_256 as keccak256 } from '@noble/hashes/sha3'

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

/** An error saying the node has the transaction already (a retry of one it accepted, or another client's copy). */
export const saysKnownTransaction = (message: string): boolean => /\balready known|(?<!un)known transaction|already imported|transaction already exists/i.test(message)

/**
 * The hash of a signed transaction (`eth_sendRawTransaction`'s param): the Keccak-256 of its
 * bytes, what a node answers when it accepts one. Undefined for a param that is not hex bytes.
 */
export function transactionHash (raw: unknown): string | undefined {
  if (typeof raw !== 'string' || !/^0x(?:[0-9a-fA-F]{2})+$/.test(raw)) return undefined
  return `0x${Buffer.from(keccak256(Buffer.from(raw.slice(2), 'hex'))).toString('hex')}`
}
