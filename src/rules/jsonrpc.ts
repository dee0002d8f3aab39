/**
 * JSON-RPC 2.0 requests as an RPC pool (`protocol` `jsonrpc` or `evm`) reads them:
 * a POST body is one call or a batch of calls, and a body that is neither gets the
 * standard error object (-32700 for a body that is not JSON, -32600 for JSON that
 * is not a request) without reaching a provider, as a JSON-RPC server answers it
 * (https://www.jsonrpc.org/specification, sections 4, 5.1 and 6). Pure: the data
 * plane's RPC stage reads the body with these rules.
 */

/** One call as sent: `id` absent for a notification. */
export interface RpcCall {
  readonly jsonrpc: '2.0'
  readonly method: string
  readonly params?: unknown[] | Record<string, unknown>
  readonly id?: string | number | null
}

/** A JSON-RPC error object. */
export interface RpcError {
  readonly code: number
  readonly message: string
}

/** What a body holds: one call, a batch, or an error to answer at once. */
export type ParsedBody =
  | { readonly kind: 'call', readonly call: RpcCall }
  | { readonly kind: 'batch', readonly calls: readonly RpcCall[] }
  | { readonly kind: 'invalid', readonly error: RpcError }

export const PARSE_ERROR: RpcError = { code: -32700, message: 'Parse error' }
export const INVALID_REQUEST: RpcError = { code: -32600, message: 'Invalid Request' }

/** Most calls in one batch (a batch of more is answered -32600 whole). */
export const MAX_BATCH_CALLS = 1000

/** True for a valid call object (an id, when present, is a string, a number or null). */
export function isCall (value: unknown): value is RpcCall {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const call = value as Record<string, unknown>
  if (call.jsonrpc !== '2.0' || typeof call.method !== 'string' || call.method === '') return false
  if (call.params !== undefined && (typeof call.params !== 'object' || call.params === null)) return false
  const id = call.id
  return id === undefined || id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id))
}

/**
 * Reads a request body. A batch must be a non-empty list of valid calls, at most
 * MAX_BATCH_CALLS; one invalid member makes the batch invalid as a whole (the
 * client's mistake is told before any provider's quota is spent on the rest).
 */
export function parseBody (body: Buffer | string | undefined): ParsedBody {
  let value: unknown
  try {
    value = JSON.parse(typeof body === 'string' ? body : body === undefined ? '' : body.toString('utf8'))
  } catch {
    return { kind: 'invalid', error: PARSE_ERROR }
  }
  if (Array.isArray(value)) {
    if (value.length === 0 || value.length > MAX_BATCH_CALLS || !value.every(isCall)) return { kind: 'invalid', error: INVALID_REQUEST }
    return { kind: 'batch', calls: value }
  }
  return isCall(value) ? { kind: 'call', call: value } : { kind: 'invalid', error: INVALID_REQUEST }
}

/** The answer to a request that could not be read: the error with a null id, as the specification says. */
export function errorAnswer (error: RpcError, id: string | number | null = null): string {
  return JSON.stringify({ jsonrpc: '2.0', id, error })
}

/**
 * A call's params written so that calls asking the same thing read the same: object
 * keys sorted, hex lowercased (`0xAB` and `0xab` are one value). Hex is not trimmed:
 * nodes refuse `0x0a` where `0xa` is due, so the two are different calls. Undefined
 * for params nested deeper than MAX_DEPTH (such a call is not shared).
 */
export function canonicalParams (params: unknown): string | undefined {
  const written = canonical(params, 0)
  return written === TOO_DEEP ? undefined : JSON.stringify(written)
}

const MAX_DEPTH = 32
const TOO_DEEP = Symbol('too deep')

function canonical (value: unknown, depth: number): unknown {
  if (depth > MAX_DEPTH) return TOO_DEEP
  if (typeof value === 'string') return /^0x[0-9a-fA-F]*$/.test(value) ? value.toLowerCase() : value
  if (Array.isArray(value)) {
    const out: unknown[] = []
    for (const item of value) {
      const written = canonical(item, depth + 1)
      if (written === TOO_DEEP) return TOO_DEEP
      out.push(written)
    }
    return out
  }
  if (typeof value !== 'object' || value === null) return value
  const sorted: Record<string, unknown> = {}
  for (const key of Object.keys(value).sort()) {
    const written = canonical((value as Record<string, unknown>)[key], depth + 1)
    if (written === TOO_DEEP) return TOO_DEEP
    sorted[key] = written
  }
  return sorted
}
