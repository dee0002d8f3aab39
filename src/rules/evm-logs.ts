/**
 * How an `evm` pool reads an `eth_getLogs` call's block range to split it into
 * ranges its providers accept (issue 36 item 9; the stage is proxy/rpc-logs.ts):
 * the filter's `fromBlock` and `toBlock` as block numbers or as tags the head
 * resolves, the consecutive ranges of a given size, a range's halves, and whether a
 * provider's error says the range asked too much. Pure.
 */
import { saysTooLarge } from './jsonrpc-errors.js'

/** A block as a filter names it: a number, or a tag only the chain's head says (`latest`, `safe`, `finalized`). */
export type BlockRef = number | HeadTag

/** The tags resolved by asking the pool (`latest` by eth_blockNumber, the others by eth_getBlockByNumber). */
export type HeadTag = 'latest' | 'safe' | 'finalized'

const HEAD_TAGS: ReadonlySet<string> = new Set(['latest', 'safe', 'finalized'])

/** Hex block numbers read: up to 13 digits (2^52, within a double's exact integers). */
const HEX_BLOCK = /^0x[0-9a-fA-F]{1,13}$/

/** An eth_getLogs call's filter and the blocks it spans, as named. */
export interface LogsAsk {
  readonly filter: Readonly<Record<string, unknown>>
  readonly from: BlockRef
  readonly to: BlockRef
}

/**
 * The filter of an eth_getLogs call's params and its range, or undefined for a call
 * never split: not one filter object, a `blockHash` filter (one block), a `pending`
 * end (no number names the pending block), a block that is neither a hex number nor
 * a known tag (the provider answers it). A missing end is `latest`, as nodes read it.
 */
export function logsAsk (params: unknown): LogsAsk | undefined {
  if (!Array.isArray(params) || params.length !== 1) return undefined
  const filter: unknown = params[0]
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) return undefined
  const fields = filter as Record<string, unknown>
  if (fields.blockHash !== undefined) return undefined
  const from = blockRef(fields.fromBlock ?? 'latest')
  const to = blockRef(fields.toBlock ?? 'latest')
  return from === undefined || to === undefined ? undefined : { filter: fields, from, to }
}

/** A filter's block: `earliest` is 0, a hex number its value, a head tag as it is; undefined for anything else. */
export function blockRef (value: unknown): BlockRef | undefined {
  if (typeof value !== 'string') return undefined
  if (value === 'earliest') return 0
  if (HEAD_TAGS.has(value)) return value as HeadTag
  return HEX_BLOCK.test(value) ? Number.parseInt(value.slice(2), 16) : undefined
}

/** A block number as JSON-RPC writes it (`0x` and no leading zeros). */
export const hexBlock = (n: number): string => `0x${n.toString(16)}`

/** How many ranges of `size` blocks cover `from`..`to` (both included). */
export const rangeCount = (from: number, to: number, size: number): number => Math.ceil((to - from + 1) / size)

/** The consecutive ranges of `size` blocks from `from` to `to` (both included), in block order; the last may be shorter. */
export function splitRange (from: number, to: number, size: number): Array<readonly [number, number]> {
  const ranges: Array<readonly [number, number]> = []
  for (let start = from; start <= to; start += size) ranges.push([start, Math.min(to, start + size - 1)])
  return ranges
}

/** A range of two blocks or more cut in two, the lower half first. */
export function halves (from: number, to: number): [readonly [number, number], readonly [number, number]] {
  const middle = from + Math.floor((to - from) / 2)
  return [[from, middle], [middle + 1, to]]
}

/** The filter asking `from`..`to` instead of its own range (every other field as the client sent it). */
export const rangeFilter = (filter: Readonly<Record<string, unknown>>, from: number, to: number): Record<string, unknown> =>
  ({ ...filter, fromBlock: hexBlock(from), toBlock: hexBlock(to) })

/**
 * True for a provider's error saying the range asked too much ("query returned more
 * than 10000 results", "block range is too wide"…): rules/jsonrpc-errors.ts's first
 * rule, the caller's to narrow. Such a range is halved and asked again.
 */
export function refusedAsTooLarge (error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false
  const message = (error as { message?: unknown }).message
  return typeof message === 'string' && saysTooLarge(message)
}
