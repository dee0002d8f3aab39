/**
 * An `evm` pool's subscriptions delivered without a gap and without a repeat,
 * whichever member sends them (issue 37 item 3). `newHeads`: a head whose hash was
 * delivered is dropped; a head more than one block past the last delivered one is
 * preceded by the missed blocks, fetched through the pool (`eth_getBlockByNumber`,
 * at most MAX_FILL of them, the newest) and delivered in order; a head at or below
 * the last one with a new hash is a reorg and passes. `logs`: a log already
 * delivered (block hash, transaction hash, log index, and whether it is a removal)
 * is dropped, and after a failover the range from the last delivered log's block
 * (or the block the subscription began at) to the latest is fetched with
 * `eth_getLogs` and what was missed delivered first, in order. What is remembered
 * is bounded: the last REMEMBERED heads, and logs of the last REMEMBERED blocks.
 */

/** At most this many missed heads are fetched for one gap (the newest of them). */
export const MAX_FILL = 128
/** Heads, and blocks of logs, remembered for deduplication. */
export const REMEMBERED = 256

/** Fetches through the pool: one call's result, undefined when it failed. */
export type Fetch = (method: string, params: unknown[]) => Promise<unknown>

/** Delivers one notification's result to the subscription's clients. */
export type Emit = (result: unknown) => void

type Head = { readonly number?: unknown, readonly hash?: unknown }
type Log = { readonly blockNumber?: unknown, readonly blockHash?: unknown, readonly transactionHash?: unknown, readonly logIndex?: unknown, readonly removed?: unknown }

const numberOf = (value: unknown): number | undefined => {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{1,16}$/.test(value)) return undefined
  const n = Number.parseInt(value, 16)
  return Number.isSafeInteger(n) ? n : undefined
}
const hex = (n: number): string => `0x${n.toString(16)}`

/** What a head notification carries of a block fetched whole (no transactions or uncles). */
const BODY_FIELDS = new Set(['transactions', 'uncles', 'size', 'totalDifficulty'])
function headerOf (block: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(block).filter(([name]) => !BODY_FIELDS.has(name)))
}

/** Continuity of one `newHeads` subscription. */
export class HeadsContinuity {
  private last: number | undefined
  private readonly seen = new Set<string>()

  constructor (private readonly fetch: Fetch, private readonly emit: Emit) {}

  /** Delivers `head` (and the heads missed before it); resolves when they are out. Anything but a head passes as it is. */
  async accept (given: unknown): Promise<void> {
    if (typeof given !== 'object' || given === null) { this.emit(given); return }
    const head = given as Head
    const n = numberOf(head.number)
    const hash = typeof head.hash === 'string' ? head.hash : undefined
    if (n === undefined || hash === undefined) { this.emit(head); return }
    if (this.seen.has(hash)) return
    if (this.last !== undefined && n > this.last + 1) await this.fill(Math.max(this.last + 1, n - MAX_FILL), n - 1)
    this.deliver(n, hash, head)
  }

  private async fill (from: number, to: number): Promise<void> {
    for (let n = from; n <= to; n++) {
      const block = await this.fetch('eth_getBlockByNumber', [hex(n), false])
      if (typeof block !== 'object' || block === null) continue
      const hash = (block as Head).hash
      if (typeof hash !== 'string' || this.seen.has(hash)) continue
      this.deliver(n, hash, headerOf(block as Record<string, unknown>))
    }
  }

  private deliver (n: number, hash: string, head: unknown): void {
    this.last = n
    this.seen.add(hash)
    if (this.seen.size > REMEMBERED) this.seen.delete(this.seen.values().next().value as string)
    this.emit(head)
  }
}

/** Continuity of one `logs` subscription with `filter` (its address and topics). */
export class LogsContinuity {
  private lastBlock: number | undefined
  /** Keys of delivered logs, by block number. */
  private readonly seen = new Map<number, Set<string>>()

  constructor (private readonly filter: Record<string, unknown>, private readonly fetch: Fetch, private readonly emit: Emit, private startBlock: number | undefined) {}

  /** Sets the block the subscription began at (asked of the pool when it was made). */
  began (block: number | undefined): void { this.startBlock ??= block }

  /** Delivers `log` unless it was delivered. Anything but a log passes as it is. */
  accept (given: unknown): void {
    if (typeof given !== 'object' || given === null) { this.emit(given); return }
    const log = given as Log
    const n = numberOf(log.blockNumber)
    const key = `${String(log.blockHash)}/${String(log.transactionHash)}/${String(log.logIndex)}/${log.removed === true ? 1 : 0}`
    if (n !== undefined) {
      const keys = this.seen.get(n)
      if (keys?.has(key) === true) return
      if (keys === undefined) this.seen.set(n, new Set([key]))
      else keys.add(key)
      if (this.lastBlock === undefined || n > this.lastBlock) {
        this.lastBlock = n
        for (const block of this.seen.keys()) if (block <= n - REMEMBERED) this.seen.delete(block)
      }
    }
    this.emit(log)
  }

  /** After a failover: what was missed since the last delivered log's block, in order. */
  async fill (): Promise<void> {
    const from = this.lastBlock ?? this.startBlock
    if (from === undefined) return
    const logs = await this.fetch('eth_getLogs', [{ ...this.filter, fromBlock: hex(from), toBlock: 'latest' }])
    if (!Array.isArray(logs)) return
    const sorted = (logs as Log[]).slice().sort((a, b) =>
      (numberOf(a.blockNumber) ?? 0) - (numberOf(b.blockNumber) ?? 0) || (numberOf(a.logIndex) ?? 0) - (numberOf(b.logIndex) ?? 0))
    for (const log of sorted) this.accept(log)
  }
}

/** The filter of a `logs` subscription's params (`["logs", {address, topics}]`), or an empty one. */
export function logsFilter (params: readonly unknown[]): Record<string, unknown> {
  const filter = params[1]
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) return {}
  const { address, topics } = filter as Record<string, unknown>
  return { ...(address === undefined ? {} : { address }), ...(topics === undefined ? {} : { topics }) }
}
