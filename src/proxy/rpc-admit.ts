/**
 * The RPC pools' first stage (issue 36): in a pool whose `protocol` is `jsonrpc`
 * or `evm`, a POST's body is a JSON-RPC call or batch (rules/jsonrpc.ts), and one
 * that is neither is answered here with the standard error object (-32700, -32600)
 * and spends no provider's quota. The answer is HTTP 200, as Ethereum nodes (geth,
 * ganache's own JSON errors aside) answer a JSON-RPC error, so that clients (viem,
 * ethers) read its code rather than a transport failure. Other methods (a GET of a
 * health path, say) go on as in an `http` pool. Only in an RPC pool's pipeline
 * (pipeline.ts): an `http` pool's requests never reach this file.
 */
import { errorAnswer, parseBody, type ParsedBody } from '../rules/jsonrpc.js'
import type { ServedAnswer } from './cache-answer.js'
import type { ProxyRequest } from './forward.js'

/** The protocols whose POSTs are JSON-RPC. */
export const RPC_PROTOCOLS: ReadonlySet<string> = new Set(['jsonrpc', 'evm'])

/** Methods that send a transaction: sent once, moved on only when they never reached a provider. */
const WRITES: ReadonlySet<string> = new Set(['eth_sendRawTransaction', 'eth_sendTransaction'])

/**
 * The answer to a request whose body is not JSON-RPC, at once; undefined for one that
 * goes on, a single call marked on the request (`rpc`: its method, and whether it may
 * be sent again) for the stages after this one. A batch goes on whole, for now.
 */
export function rpcRefusal (incoming: Pick<ProxyRequest, 'method' | 'body' | 'rpc'>): ServedAnswer | undefined {
  if (incoming.method !== 'POST') return undefined
  const parsed: ParsedBody = parseBody(incoming.body)
  if (parsed.kind === 'call') incoming.rpc = { method: parsed.call.method, repeatable: !WRITES.has(parsed.call.method) }
  if (parsed.kind !== 'invalid') return undefined
  const body = Buffer.from(errorAnswer(parsed.error))
  return { kind: 'answer', status: 200, headers: { 'content-type': 'application/json' }, body, provider: null, attempts: 0 }
}
