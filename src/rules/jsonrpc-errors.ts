/**
 * What a JSON-RPC error in a provider's answer means for the pool: one table, read
 * message first and code second, because providers reuse codes (Infura answers
 * "query returned more than 10000 results" with -32005, the code others use for a
 * rate limit; ganache answers an unknown method with -32700). The status is often
 * 200, so the answer's body, not its status, says what happened:
 *
 * | verdict | means | the call |
 * |---|---|---|
 * | `rate_limited` | the member's key is over its limit | the member cools down (`rate_limited`); the call moves on |
 * | `unsupported` | the member does not serve the method | refused by that member for a while (as a 403 refuses a resource); the call moves on |
 * | `missing_state` | the member lacks the block or state (not an archive node, or behind) | moves on to a member that has it; no health failure |
 * | `caller` | the call's own answer (reverted, bad params, too large a range) | success for health; never retried |
 * | `server` | the member failed (internal error, anything else) | a failure for health; a read moves on |
 */
import type { RpcError } from './jsonrpc.js'

export type RpcVerdict = 'rate_limited' | 'unsupported' | 'missing_state' | 'caller' | 'server'

/** Too much asked of one call: the caller's to narrow (an evm pool halves an eth_getLogs range refused so: rules/evm-logs.ts). */
const TOO_LARGE = /query returned more than|response size (is )?(exceeded|too large)|block range (is )?too (large|wide)|exceeds? (the )?(max(imum)?|limit of) .*(range|results|blocks)/i

/** True for an error message saying the call asked too much (a range too wide, too many results). */
export const saysTooLarge = (message: string): boolean => TOO_LARGE.test(message)

/** Messages, in order: the first that matches decides. */
const BY_MESSAGE: ReadonlyArray<readonly [RegExp, RpcVerdict]> = [
  [TOO_LARGE, 'caller'],
  [/rate limit|too many requests|exceeded .*(capacity|daily request count|quota)|limit exceeded|request rate|throughput|credits? (exhausted|exceeded)|compute units/i, 'rate_limited'],
  [/method .*(not found|does not exist|not available|not supported|is not whitelisted|disabled)|unsupported method|\b[a-z]+_[a-zA-Z]+ (is )?not supported/i, 'unsupported'],
  [/header not found|missing trie node|unknown block|block not found|pruned|state (is )?not available|historical state/i, 'missing_state'],
  [/execution reverted|revert|insufficient funds|nonce too (low|high)|already known|known transaction|replacement transaction underpriced|intrinsic gas too low|gas required exceeds|invalid (params|argument)|cannot unmarshal/i, 'caller']
]

/** Codes, when no message decided. */
const BY_CODE: ReadonlyMap<number, RpcVerdict> = new Map([
  [-32005, 'rate_limited'],
  [-32029, 'rate_limited'],
  [-32601, 'unsupported'],
  [-32602, 'caller'],
  [3, 'caller']
])

/**
 * What a provider's JSON-RPC error means (see the table in this file's header). A
 * revert comes first, whatever its reason says (a contract's "Max mint limit exceeded"
 * is no rate limit): code 3, "execution reverted", or revert data.
 */
export function rpcVerdict (error: (Partial<RpcError> & { readonly data?: unknown }) | null | undefined): RpcVerdict {
  const message = typeof error?.message === 'string' ? error.message : ''
  if (error?.code === 3 || /execution reverted|\brevert/i.test(message) || (error?.data !== undefined && error?.data !== null)) return 'caller'
  for (const [pattern, verdict] of BY_MESSAGE) if (pattern.test(message)) return verdict
  return (typeof error?.code === 'number' ? BY_CODE.get(error.code) : undefined) ?? 'server'
}
