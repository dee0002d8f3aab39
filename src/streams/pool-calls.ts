/**
 * JSON-RPC calls a stream makes through its pool's pipeline (proxy/pipeline.ts), as
 * an HTTP POST of the pool would be made: a client's calls over an RPC pool's socket
 * (everything but eth_subscribe and eth_unsubscribe), and the gap fills of an `evm`
 * pool's subscriptions. They get the pool's cache, coalescing, failover and quotas
 * like any other call; the answer comes back as its body's text.
 */
import type { Pipelines } from '../proxy/pipeline.js'
import { readBounded } from '../proxy/body-read.js'
import type { AttemptLog } from '../proxy/forward.js'
import { withoutHandshake } from './handshake.js'
import type { ClientAsk } from './upstream-connect.js'

/** The largest answer a stream takes from its pool for one call (the client's own message bound applies after). */
export const CALL_ANSWER_LIMIT = 32 * 1024 * 1024

const QUIET: AttemptLog = { info () {}, warn () {}, isLevelEnabled: () => false }

/** What a call needs to know of the stream that makes it. */
export interface CallOrigin {
  readonly poolId: number
  /** Path and query under the pool. */
  readonly path: string
  readonly headers: Record<string, string | string[] | undefined>
  readonly peer: string
  readonly protocol: string
  readonly requestId: string
}

/** The calls of a stream asking `ask` of `poolId`: its client's headers without the handshake's own. */
export function originOf (poolId: number, ask: ClientAsk): CallOrigin {
  return { poolId, path: ask.path, headers: withoutHandshake(ask.headers), peer: ask.peer, protocol: ask.protocol, requestId: ask.requestId }
}

/** The JSON-RPC error text for a call the pool could not answer. */
export function errorText (id: unknown, code: number, message: string): string {
  return JSON.stringify({ jsonrpc: '2.0', id: id ?? null, error: { code, message } })
}

/** Sends `body` (one call or a batch, as JSON text) through the pool; the answer's text, or a JSON-RPC error for `id`. */
export async function callPool (pipelines: Pick<Pipelines, 'forward'>, origin: CallOrigin, body: string, id: unknown): Promise<string> {
  const answer = await pipelines.forward(origin.poolId, {
    method: 'POST',
    url: `/api/pools/${origin.poolId}/proxy${origin.path}`,
    headers: { ...origin.headers, 'content-type': 'application/json', 'content-length': undefined },
    body: Buffer.from(body),
    peer: origin.peer,
    protocol: origin.protocol,
    requestId: origin.requestId,
    log: QUIET,
    gone: () => false
  })
  if (answer.kind !== 'answer') {
    const why = answer.kind === 'unavailable' ? 'no available providers in the pool' : answer.kind === 'deadline' ? `the pool's deadline of ${answer.deadlineMs} ms passed` : 'every provider of the pool failed'
    return errorText(id, -32603, why)
  }
  if (answer.body === null) return errorText(id, -32603, 'the pool answered with no body')
  const read = Buffer.isBuffer(answer.body) ? answer.body : await readBounded(answer.body, CALL_ANSWER_LIMIT).catch(() => undefined)
  if (read === undefined || !Buffer.isBuffer(read)) {
    if (read !== undefined) read.destroy()
    return errorText(id, -32603, 'the pool\'s answer was too large or could not be read')
  }
  return read.toString('utf8')
}

/** One call's result through the pool, parsed; undefined when it failed or answered an error. */
export async function resultOf (pipelines: Pick<Pipelines, 'forward'>, origin: CallOrigin, method: string, params: unknown[]): Promise<unknown> {
  const text = await callPool(pipelines, origin, JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), 1)
  try {
    const answer = JSON.parse(text) as { result?: unknown }
    return answer.result ?? undefined
  } catch {
    return undefined
  }
}
