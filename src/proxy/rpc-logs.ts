/**
 * An `evm` pool's large log ranges (issue 36 item 9): an `eth_getLogs` call whose
 * range spans more blocks than the pool's limit (the smallest `max_logs_range` of
 * its enabled members that set one: runtime.repository.ts) is split into consecutive
 * ranges of that size, each sent as a call of its own through the single-call path
 * behind this stage (its own choice, failover and coalescing), at most
 * RANGE_CONCURRENCY at once, and the logs put back together in block order as one
 * answer with the client's id. A range a provider refuses as too large ("query
 * returned more than 10000 results", rules/evm-logs.ts) is halved and asked again,
 * down to one block; past that, and for any other error of a range, that error is
 * the call's answer. Tags are read as the pool's head says (`latest` as the head
 * tracker knows it, else by one eth_blockNumber; `safe`/`finalized` by
 * eth_getBlockByNumber); a head the pool
 * cannot tell sends the call unsplit, as does a `blockHash` filter or a `pending` end.
 * Bounded: MAX_RANGES ranges (a call needing more is answered -32602), MAX_RANGE_CALLS
 * upstream calls with the halvings for one client request (a batch's calls together), MAX_LOGS_BYTES of logs gathered, and nothing more
 * sent once the client left. A pool without a limit has no such stage (pipeline.ts).
 */
import type { Readable } from 'node:stream'
import { blockRef, halves, hexBlock, logsAsk, rangeCount, rangeFilter, refusedAsTooLarge, splitRange, type BlockRef, type LogsAsk } from '../rules/evm-logs.js'
import { errorAnswer, type RpcCall } from '../rules/jsonrpc.js'
import type { ServedAnswer } from './cache-answer.js'
import { readBounded } from './body-read.js'
import type { ProxyRequest } from './forward.js'
import { callRequest, jsonAnswer } from './rpc-admit.js'
import { UNSERVED } from './rpc-batch.js'

type Run = (poolId: number, incoming: ProxyRequest) => Promise<ServedAnswer>

/** What the stage reads of the pool's row. */
export interface LogsPool { readonly max_logs_range: number | null }

/** Ranges of one call in flight at once. */
export const RANGE_CONCURRENCY = 4
/** Most ranges one call is split into (its span over the limit); a call needing more is answered INVALID_PARAMS. */
export const MAX_RANGES = 1000
/** Most upstream calls the splits of one client request make (a batch's calls together), halvings included. */
const MAX_RANGE_CALLS = 2 * MAX_RANGES
/** Most bytes of logs one split call gathers (as a batch's answer: rpc-batch.ts). */
export const MAX_LOGS_BYTES = 32 * 1024 * 1024
/** Largest answer of one range read. */
const MAX_RANGE_ANSWER_BYTES = 16 * 1024 * 1024
const INVALID_PARAMS = -32602
/** Listeners the client's signal may hold: a batch's 16 calls in flight, each with its ranges, each waiting a few ways. */
const SIGNAL_LISTENERS = 16 * RANGE_CONCURRENCY * 4

/** The stage in front of `run`: eth_getLogs calls over more than `limit` blocks split; every other call on to `run`. */
export function splitLogs (run: Run, limit: number, head?: (poolId: number) => bigint | undefined): Run {
  return async (poolId, incoming) => {
    const rpc = incoming.rpc
    if (rpc?.method !== 'eth_getLogs') return await run(poolId, incoming)
    const ask = logsAsk(rpc.call.params)
    // One block named twice (`{}` is latest to latest, a poll's usual call) needs no head read.
    if (ask === undefined || ask.from === ask.to) return await run(poolId, incoming)
    const id = rpc.call.id ?? null
    // `latest` as the head tracker knows it (rpc-heads.ts), when it does: no upstream call to read it.
    const known = head?.(poolId)
    const from = await blockOf(run, poolId, incoming, ask.from, known)
    const to = from === undefined ? undefined : await blockOf(run, poolId, incoming, ask.to, known)
    if (from === undefined || to === undefined || to - from + 1 <= limit) return await run(poolId, incoming)
    const count = rangeCount(from, to, limit)
    if (count > MAX_RANGES) {
      const message = `The range spans ${to - from + 1} blocks: this pool splits eth_getLogs into at most ${MAX_RANGES} ranges of ${limit} blocks; ask a narrower range`
      return jsonAnswer(errorAnswer({ code: INVALID_PARAMS, message }, id))
    }
    return await new LogsSplit(run, poolId, incoming, ask, id).answer(splitRange(from, to, limit))
  }
}

/** A block's number: as named, or as the pool's head says for a tag; undefined when the pool cannot tell. */
async function blockOf (run: Run, poolId: number, incoming: ProxyRequest, block: BlockRef, knownHead: bigint | undefined): Promise<number | undefined> {
  if (typeof block === 'number') return block
  if (block === 'latest' && knownHead !== undefined) return Number(knownHead)
  const call: RpcCall = block === 'latest'
    ? { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }
    : { jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: [block, false] }
  const answer = await run(poolId, callRequest(incoming, call, true, SIGNAL_LISTENERS)).catch(() => undefined)
  if (answer?.kind !== 'answer' || answer.body === null) return undefined
  if (answer.status !== 200) { letGo(answer); return undefined }
  const read = await jsonOf(answer.body, 64 * 1024)
  const result = read?.result
  const number = block === 'latest' ? result : (result as { number?: unknown } | null | undefined)?.number
  const found = blockRef(number)
  return typeof found === 'number' ? found : undefined
}

/** One split call: its ranges asked, halved when refused as too large, and the logs merged in order. */
class LogsSplit {
  private stop: ServedAnswer | undefined
  private bytes = 0
  private attempts = 0
  private readonly providers = new Set<string | null>()

  constructor (
    private readonly run: Run, private readonly poolId: number, private readonly incoming: ProxyRequest,
    private readonly ask: LogsAsk, private readonly id: string | number | null
  ) {}

  /** The call's answer: every range's logs in block order, or the first error that ended it. */
  async answer (ranges: ReadonlyArray<readonly [number, number]>): Promise<ServedAnswer> {
    const parts: string[][] = ranges.map(() => [])
    let next = 0
    const worker = async (): Promise<void> => {
      while (next < ranges.length && this.stop === undefined) {
        const i = next++
        const [from, to] = ranges[i] as readonly [number, number]
        await this.range(from, to, parts[i] as string[])
      }
    }
    await Promise.all(Array.from({ length: Math.min(RANGE_CONCURRENCY, ranges.length) }, worker))
    if (this.stop !== undefined) return this.stop
    const logs = parts.flat().filter((part) => part !== '').join(',')
    // The provider when one answered every range, else none.
    const provider = this.providers.size === 1 ? [...this.providers][0] as string | null : null
    return this.answered(`{"jsonrpc":"2.0","id":${JSON.stringify(this.id)},"result":[${logs}]}`, { provider, attempts: this.attempts })
  }

  /** Asks `from`..`to`, adding its logs to `into`; a range refused as too large is asked again in halves, the lower first. */
  private async range (from: number, to: number, into: string[]): Promise<void> {
    if (this.stop !== undefined) return
    if (this.incoming.gone?.() === true) return this.fail('The client left before all the ranges were asked')
    const budget = this.incoming.budget ??= { rangeCalls: 0 }
    if (++budget.rangeCalls > MAX_RANGE_CALLS) return this.fail(`More than ${MAX_RANGE_CALLS} range calls for one request: ask narrower ranges`)
    const call: RpcCall = { jsonrpc: '2.0', id: this.id, method: 'eth_getLogs', params: [rangeFilter(this.ask.filter, from, to)] }
    let served: ServedAnswer
    try {
      served = await this.run(this.poolId, callRequest(this.incoming, call, true, SIGNAL_LISTENERS))
    } catch (error) {
      return this.fail(error instanceof Error ? error.message : 'The call failed')
    }
    // No provider's answer, or not a 200: as the call's own would be.
    if (served.kind !== 'answer' || served.status !== 200 || served.body === null) return this.end(served)
    this.attempts += served.attempts
    this.providers.add(served.provider)
    const answer = await jsonOf(served.body, Math.min(MAX_RANGE_ANSWER_BYTES, MAX_LOGS_BYTES - this.bytes + 1))
    if (answer === undefined) return this.fail(`The logs of blocks ${hexBlock(from)}..${hexBlock(to)} were over the bytes one call gathers, or not JSON-RPC: ask a narrower range`)
    if (answer.error !== undefined && answer.error !== null) {
      if (from < to && refusedAsTooLarge(answer.error)) {
        for (const [lower, upper] of halves(from, to)) await this.range(lower, upper, into)
        return
      }
      return this.end(this.answered(JSON.stringify({ ...answer, id: this.id }), served))
    }
    if (!Array.isArray(answer.result)) return this.fail('The provider\'s answer was not a list of logs')
    const text = JSON.stringify(answer.result).slice(1, -1)
    this.bytes += text.length
    if (this.bytes > MAX_LOGS_BYTES) return this.fail(`The logs are over ${MAX_LOGS_BYTES} bytes: ask a narrower range`)
    into.push(text)
  }

  /** Ends the call with the service's JSON-RPC error (the first end stands). */
  private fail (message: string): void {
    this.end(jsonAnswer(errorAnswer({ code: UNSERVED, message }, this.id)))
  }

  /** Ends the call with `answer`; the first end stands, and a later one's unread body is let go. */
  private end (answer: ServedAnswer): void {
    if (this.stop === undefined) this.stop = answer
    else letGo(answer)
  }

  /** A JSON-RPC answer written here from a provider's (its own head dropped: the body is another). */
  private answered (text: string, from: { readonly provider: string | null, readonly attempts: number }): ServedAnswer {
    return { kind: 'answer', status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(text), provider: from.provider, attempts: from.attempts }
  }
}

/** Lets an answer that is not passed on go: its unread body (a provider's stream) is closed. */
function letGo (answer: ServedAnswer): void {
  if (answer.kind === 'answer' && answer.body !== null && !Buffer.isBuffer(answer.body)) answer.body.destroy()
}

/** A JSON-RPC answer object read from a body of at most `limit` bytes; undefined for a bigger one or anything else. */
async function jsonOf (body: Buffer | Readable, limit: number): Promise<Record<string, unknown> | undefined> {
  const read = Buffer.isBuffer(body) ? body : await readBounded(body, limit).catch(() => undefined)
  if (read === undefined) return undefined
  if (!Buffer.isBuffer(read)) { read.destroy(); return undefined }
  if (read.length > limit) return undefined
  try {
    const value: unknown = JSON.parse(read.toString('utf8'))
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : undefined
  } catch {
    return undefined
  }
}
