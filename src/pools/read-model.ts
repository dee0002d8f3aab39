/**
 * The read model of pool status records (operations 1 and 3): each pool's record
 * kept serialised, as the bytes Fastify would have written, and rebuilt only when
 * the pool changed or a time boundary passed (a cooldown ending, a quota window
 * ending: see pool-status.ts `nextChangeAt`; for an `evm` pool, whose members show
 * their nodes' heads, which move with no write, HEADS_VALID_MS after it was built:
 * member-heads.ts). Otherwise a read costs one
 * change check, or nothing:
 *
 * - This process's writes are told through the change feed (changes.ts) after they
 *   commit: a pool's entry is dropped, and a provider's change drops every entry
 *   showing that provider.
 * - Other processes' writes bump `pools.change_seq` (migration 008): a read of one
 *   pool compares its change_seq (one primary-key read), a list read every pool's
 *   (one query, which also finds pools created or deleted elsewhere).
 * - On SQLite that check is skipped while the database's change token (PRAGMA
 *   data_version with total_changes(): see db/create-db.ts) stands where it stood
 *   when the entries were last checked. It moves when another connection commits and
 *   when this one writes anything, so it does not depend on every writer of this
 *   process telling the feed.
 *
 * Every check takes the token first, then reads the data, so data newer than its
 * token can only cause a needless rebuild, never a stale answer.
 *
 * A list never holds the event loop for long, however many pools it shows (10,000
 * and more: docs/performance.md):
 *
 * - The whole list is kept as segments (the records of SEGMENT_IDS consecutive ids,
 *   each after its comma) that answers share and send one after the other: a change
 *   copies its segment again, not the list, and no request copies the list.
 * - Requests for the whole list share one check at a time, begun after each of them
 *   arrived. When more records are stale than a check rebuilds quickly (after
 *   rotations spread over every pool, at start-up), they are first rebuilt in slices
 *   (SLICE_MS, SLICE_POOLS at most), one read each, with a turn of the event loop
 *   between; then the check rebuilds what is left in the read that checks.
 * - So an answer still shows every pool as of one moment: on SQLite that read is one
 *   transaction; on PostgreSQL, whose statements each see what has committed by
 *   then, every record it rebuilt must carry the change_seq read with the others,
 *   before and after it was built, or the check is made again.
 */
import { setImmediate as nextTurn } from 'node:timers/promises'
import type { ChangeFeed } from '../changes.js'
import type { Db } from '../db/types.js'
import type { Work, WorkRunner } from '../db/work.js'
import { NO_HEADS, type MemberHeads } from './member-heads.js'
import { NO_STREAMS, type StreamCountsOf } from './pool-streams.js'
import { buildPoolStatus, toPoolSummary } from './pool-status.js'
import { findChangeSeq, findPool, listChangeSeqsOf, listEveryPoolChangeSeq } from './pool.repository.js'

/** Which records a list carries. */
export type ListFields = 'full' | 'summary'

/** A list answer up to its timestamp: Buffers sent one after the other, never written to once made. */
export interface ListBody {
  readonly pieces: readonly Buffer[]
  /** Their bytes in all. */
  readonly length: number
}

interface Entry {
  readonly id: number
  readonly changeSeq: number
  /** The record's JSON: a Buffer of its own once built, then a view into the segment holding it (assembleWhole). */
  full: Buffer
  summary: Buffer
  readonly providerIds: ReadonlySet<number>
  /** The record is exact from builtAt (ms) until just before validUntil. */
  readonly builtAt: number
  readonly validUntil: number
  /** The change token at which the entry was last found current; null: never without a check. */
  checkedAt: string | null
}

export interface ReadModelDeps {
  database: WorkRunner & { changeToken?: () => string | null }
  now: () => Date
  changes: ChangeFeed
  /** The evm members' heads this process tracks (member-heads.ts); none when not given. */
  memberHeads?: MemberHeads
  /** This process's streams (pool-streams.ts); none when not given. */
  streamCounts?: StreamCountsOf
}

const LIST_OPEN = Buffer.from('{"pools":[')
const COMMA = Buffer.from(',')
/** Answers (pages, whole lists, full or summary) kept assembled. */
const ANSWERS_KEPT = 8
/**
 * Ids per segment of the whole list: about 4 MB of full records. A change copies its
 * segment again (a few ms); an answer of 10,000 pools goes out in about a dozen
 * pieces (each piece written costs the stream some 20–30 µs: docs/performance.md).
 */
export const SEGMENT_IDS = 1024
/** How long one slice of rebuilds (or of segment copies) may hold the event loop. */
export const SLICE_MS = 15
/** The most records one slice rebuilds (a read of a few hundred statements at most). */
export const SLICE_POOLS = 100
/** Stale records the answering check rebuilds itself; more are rebuilt in slices first. */
export const CHECK_REBUILDS = 64
/** Rounds of slices after which the answering check rebuilds whatever is stale (writes keep coming faster than slices). */
const ROUNDS = 5

function * rebuild (db: Db, id: number, at: Date, heads: MemberHeads, streams: StreamCountsOf): Work<Entry | undefined> {
  const pool = yield * findPool(db, id)
  if (pool === undefined) return undefined
  const built = yield * buildPoolStatus(db, pool, at, heads, streams)
  return {
    id,
    changeSeq: built.changeSeq,
    full: Buffer.from(JSON.stringify(built.record)),
    summary: Buffer.from(JSON.stringify(toPoolSummary(built.record))),
    providerIds: built.providerIds,
    builtAt: at.getTime(),
    validUntil: built.validUntil,
    checkedAt: null
  }
}

/** A list answer up to its timestamp, and when it may be served again without a look at its entries. */
interface Answer {
  /** Where it starts (a whole list's answers are kept one per fields, whatever their offset). */
  readonly offset: number
  readonly total: number
  readonly items: readonly Entry[]
  readonly body: ListBody
  /** The change token and feed generation its entries were found current at. */
  token: string | null
  generation: number
  /** Its entries are all exact from builtAt until just before validUntil (ms). */
  builtAt: number
  validUntil: number
}

/** The records of SEGMENT_IDS consecutive ids, each after a comma: one Buffer shared by every answer that shows them. */
interface Segment {
  readonly entries: readonly Entry[]
  readonly body: Buffer
}

const fresh = (entry: Entry, at: Date) => at.getTime() >= entry.builtAt && at.getTime() < entry.validUntil

/** What the read model keeps: its entries, the pool ids, the segments and the answers assembled. */
interface ReadModelState {
  readonly entries: Map<number, Entry>
  /** Every pool id, by id, as found at `idsCheckedAt`; null when unknown. */
  ids: number[] | null
  idsCheckedAt: string | null
  /** Recent answers by query, each reused while its entries stay the same. */
  readonly answers: Map<string, Answer>
  /** The whole list's segments by fields, each by its first id / SEGMENT_IDS. */
  readonly segments: Record<ListFields, Map<number, Segment>>
  /** Moves with every change the feed tells, so an answer assembled before it is not served as it is. */
  generation: number
  /** The slices under way rebuilding stale records for the whole list, awaited by every request that needs them. */
  refreshing: Promise<void> | null
  /** The members' heads an evm pool's record shows. */
  readonly heads: MemberHeads
  /** The streams a pool's record shows (pool-streams.ts). */
  readonly streams: StreamCountsOf
}

/** A change told by this process: the pool's entry dropped (and the ids read again), or every entry showing the provider. */
function forget (state: ReadModelState, { poolId, providerId }: { poolId?: number, providerId?: number }): void {
  state.generation++
  if (poolId !== undefined) {
    state.entries.delete(poolId)
    // A pool created or deleted by this process: the ids must be read again.
    state.idsCheckedAt = null
  }
  if (providerId !== undefined) {
    for (const [id, entry] of state.entries) if (entry.providerIds.has(providerId)) state.entries.delete(id)
  }
}

/** A page found current: its entries and the number of pools. */
interface Page { readonly items: Entry[], readonly total: number }

/** A page, and the change token, instant and feed generation it was found current at. */
interface Checked { readonly page: Page, readonly token: string | null, readonly at: Date, readonly generation: number }

/**
 * The page's entries and the number of pools, found current at `token`: every
 * pool's change_seq read, and the page's stale records rebuilt in the same read.
 * When more than `maxRebuilds` are stale, rebuilds none of them and answers their ids;
 * when a commit came between (PostgreSQL), answers no ids: check again.
 */
function * checkPage (
  db: Db, state: ReadModelState, token: string | null, at: Date, offset: number, limit: number, maxRebuilds: number
): Work<Page | { stale: number[] }> {
  const { entries } = state
  const rows = yield * listEveryPoolChangeSeq(db)
  const ids = new Array<number>(rows.length)
  let current = 0
  rows.forEach((row, i) => {
    ids[i] = row.id
    const entry = entries.get(row.id)
    if (entry === undefined) return
    if (entry.changeSeq !== row.change_seq) {
      entries.delete(row.id)
    } else {
      entry.checkedAt = token
      current++
    }
  })
  // Entries of pools deleted meanwhile (by another process) are all that is left over.
  if (entries.size > current) {
    const seen = new Set(ids)
    for (const id of entries.keys()) if (!seen.has(id)) entries.delete(id)
  }
  state.ids = ids
  state.idsCheckedAt = token
  const end = Math.min(ids.length, offset + limit)
  const stale: number[] = []
  const staleSeqs = new Map<number, number>()
  for (let i = offset; i < end; i++) {
    const id = ids[i] as number
    const entry = entries.get(id)
    if (entry !== undefined && fresh(entry, at)) continue
    stale.push(id)
    staleSeqs.set(id, (rows[i] as { change_seq: number }).change_seq)
  }
  if (stale.length > maxRebuilds) return { stale }
  const rebuilt: Entry[] = []
  let torn = false
  for (const id of stale) {
    const entry = yield * rebuild(db, id, at, state.heads, state.streams)
    // Deleted since the ids were read (PostgreSQL reads are not one snapshot).
    if (entry === undefined) {
      torn = true
      continue
    }
    entry.checkedAt = token
    entries.set(id, entry)
    rebuilt.push(entry)
  }
  // On PostgreSQL each statement sees what has committed by then: a record rebuilt after
  // a commit that came after the change_seqs were read would show it beside records as
  // they were before it. So each record rebuilt must carry the change_seq read with the
  // others and still have it once built; else the check is made again (the last round
  // accepts what it finds, so that writes coming faster than checks cannot hold it back).
  if (maxRebuilds !== Infinity && rebuilt.length > 0) {
    const now = new Map((yield * listChangeSeqsOf(db, rebuilt.map((entry) => entry.id))).map((row) => [row.id, row.change_seq]))
    torn ||= rebuilt.some((entry) => entry.changeSeq !== staleSeqs.get(entry.id) || now.get(entry.id) !== entry.changeSeq)
  }
  if (torn && maxRebuilds !== Infinity) return { stale: [] }
  const items: Entry[] = []
  for (let i = offset; i < end; i++) {
    const entry = entries.get(ids[i] as number)
    if (entry !== undefined) items.push(entry)
  }
  return { items, total: ids.length }
}

/** The page from memory when nothing can have changed since it was last checked, else undefined. */
function cachedPage (state: ReadModelState, token: string | null, at: Date, offset: number, limit: number): Page | undefined {
  const { ids } = state
  if (token === null || ids === null || state.idsCheckedAt !== token) return undefined
  const items: Entry[] = []
  for (const id of ids.slice(offset, offset + limit)) {
    const entry = state.entries.get(id)
    if (entry === undefined || entry.checkedAt !== token || !fresh(entry, at)) return undefined
    items.push(entry)
  }
  return { items, total: ids.length }
}

/**
 * Rebuilds the stale records among `ids` from `from` on, SLICE_POOLS at most and
 * until `until` (performance.now() time); answers where it stopped. A record another request has
 * rebuilt meanwhile is left as it is.
 */
function * rebuildSlice (db: Db, state: ReadModelState, ids: readonly number[], from: number, at: Date, until: number): Work<number> {
  let next = from
  let rebuilt = 0
  while (next < ids.length) {
    const id = ids[next++] as number
    const entry = state.entries.get(id)
    if (entry !== undefined && fresh(entry, at)) continue
    const built = yield * rebuild(db, id, at, state.heads, state.streams)
    if (built !== undefined) state.entries.set(id, built)
    if (++rebuilt >= SLICE_POOLS || performance.now() >= until) break
  }
  return next
}

/** The times an answer's entries are all exact between. */
function span (items: readonly Entry[]): { builtAt: number, validUntil: number } {
  let builtAt = -Infinity
  let validUntil = Infinity
  for (const entry of items) {
    if (entry.builtAt > builtAt) builtAt = entry.builtAt
    if (entry.validUntil < validUntil) validUntil = entry.validUntil
  }
  return { builtAt, validUntil }
}

const sameEntries = (a: readonly Entry[], b: readonly Entry[]) => a === b || (a.length === b.length && a.every((entry, i) => entry === b[i]))

/** Keeps `answer` under `key`, the oldest dropped beyond ANSWERS_KEPT. */
function keep (state: ReadModelState, key: string, answer: Answer): void {
  state.answers.delete(key)
  if (state.answers.size >= ANSWERS_KEPT) state.answers.delete(state.answers.keys().next().value as string)
  state.answers.set(key, answer)
}

const closing = (total: number) => Buffer.from(`],"total":${total},"timestamp":`)

/**
 * A page (`limit` records at most): `{"pools":[…],"total":N,"timestamp":` in one
 * Buffer, reused while its entries stay the same.
 */
function pageBody (items: readonly Entry[], total: number, fields: ListFields): ListBody {
  const parts: Buffer[] = [LIST_OPEN]
  items.forEach((entry, i) => {
    if (i > 0) parts.push(COMMA)
    parts.push(entry[fields])
  })
  parts.push(closing(total))
  const head = Buffer.concat(parts)
  return { pieces: [head], length: head.length }
}

/**
 * The segment of `group` (entries of one id range, in order): the one kept when it
 * shows the same entries, else `,record` for each copied into a new one, each entry's
 * record then a view into it (so the records are kept once).
 */
function segmentOf (segments: Map<number, Segment>, key: number, group: readonly Entry[], fields: ListFields): { segment: Segment, copied: boolean } {
  const kept = segments.get(key)
  if (kept !== undefined && sameEntries(kept.entries, group)) return { segment: kept, copied: false }
  const parts: Buffer[] = []
  for (const entry of group) parts.push(COMMA, entry[fields])
  const body = Buffer.concat(parts)
  let at = 0
  for (const entry of group) {
    const length = entry[fields].length
    entry[fields] = body.subarray(at + COMMA.length, at + COMMA.length + length)
    at += COMMA.length + length
  }
  const segment = { entries: group, body }
  segments.set(key, segment)
  return { segment, copied: true }
}

/**
 * The whole list from `offset`: `{"pools":[…],"total":N,"timestamp":` as the
 * segments of `items` (every pool, by id) between its opening and its closing,
 * copying only segments whose entries changed, in slices of SLICE_MS.
 */
async function assembleWhole (state: ReadModelState, items: readonly Entry[], total: number, offset: number, fields: ListFields): Promise<ListBody> {
  const segments = state.segments[fields]
  const pieces: Buffer[] = [LIST_OPEN]
  const seen = new Set<number>()
  let until = performance.now() + SLICE_MS
  let position = 0
  let start = 0
  while (start < items.length) {
    const key = Math.floor((items[start] as Entry).id / SEGMENT_IDS)
    let end = start + 1
    while (end < items.length && Math.floor((items[end] as Entry).id / SEGMENT_IDS) === key) end++
    const group = items.slice(start, end)
    seen.add(key)
    const { segment, copied } = segmentOf(segments, key, group, fields)
    if (end > offset) {
      // The first segment shown may begin before `offset` (from its record at `offset` on),
      // and its first record shown goes without its comma.
      let skipped = 0
      for (let i = 0; i < offset - position; i++) skipped += COMMA.length + (segment.entries[i] as Entry)[fields].length
      pieces.push(pieces.length === 1 ? segment.body.subarray(skipped + COMMA.length) : segment.body)
    }
    position = end
    start = end
    if (copied && performance.now() >= until) {
      await nextTurn()
      until = performance.now() + SLICE_MS
    }
  }
  for (const key of segments.keys()) if (!seen.has(key)) segments.delete(key)
  pieces.push(closing(total))
  let length = 0
  for (const piece of pieces) length += piece.length
  return { pieces, length }
}

/** One pool's record after a change check: its entry when still current, else rebuilt (undefined: no such pool). */
function * checkOne (db: Db, state: ReadModelState, id: number, token: string | null, at: Date): Work<Buffer | undefined> {
  const seq = yield * findChangeSeq(db, id)
  const entry = state.entries.get(id)
  if (seq !== undefined && entry !== undefined && entry.changeSeq === seq && fresh(entry, at)) {
    entry.checkedAt = token
    return entry.full
  }
  const rebuilt = seq === undefined ? undefined : yield * rebuild(db, id, at, state.heads, state.streams)
  if (rebuilt === undefined) {
    state.entries.delete(id)
    return undefined
  }
  rebuilt.checkedAt = token
  state.entries.set(id, rebuilt)
  return rebuilt.full
}

/** Builds the read model and starts following `changes`. */
export function createPoolReadModel ({ database, now, changes, memberHeads = NO_HEADS, streamCounts = NO_STREAMS }: ReadModelDeps) {
  const changeToken = database.changeToken ?? (() => null)
  const state: ReadModelState = {
    entries: new Map(),
    ids: null,
    idsCheckedAt: null,
    answers: new Map(),
    segments: { full: new Map(), summary: new Map() },
    generation: 0,
    refreshing: null,
    heads: memberHeads,
    streams: streamCounts
  }
  changes.listen((change) => { forget(state, change) })

  /** Rebuilds the stale records among `ids` in slices of SLICE_MS, one read each, a turn of the event loop between. */
  async function refresh (ids: readonly number[]): Promise<void> {
    let from = 0
    while (from < ids.length) {
      const at = now()
      const until = performance.now() + SLICE_MS
      from = await database.read((db) => rebuildSlice(db, state, ids, from, at, until))
      if (from < ids.length) await nextTurn()
    }
  }

  /** The whole list's refresh: one under way at a time, shared by the requests that wait for it. */
  async function refreshWhole (ids: readonly number[]): Promise<void> {
    state.refreshing ??= refresh(ids).finally(() => { state.refreshing = null })
    await state.refreshing
  }

  /**
   * The page found current by a check begun now: every pool's change_seq read, and
   * the page's stale records rebuilt, in slices first when there are many.
   */
  async function check (offset: number, limit: number): Promise<Checked> {
    for (let round = 0; ; round++) {
      const token = changeToken()
      const at = now()
      const generation = state.generation
      const found = await database.read((db) => checkPage(db, state, token, at, offset, limit, round < ROUNDS ? CHECK_REBUILDS : Infinity))
      if ('items' in found) return { page: found, token, at, generation }
      if (limit === Infinity) await refreshWhole(found.stale)
      else await refresh(found.stale)
    }
  }

  /**
   * The whole list found current by a check shared by the requests waiting for one:
   * one check at a time, each begun (a turn of the event loop after the first of its
   * requests came) once the one before it has ended, so each begins after every
   * request it answers arrived and shows what was written before that request.
   */
  let waiting: Array<{ resolve: (checked: Checked) => void, reject: (error: unknown) => void }> = []
  let checking = false
  async function checkWhole (): Promise<Checked> {
    const checked = new Promise<Checked>((resolve, reject) => { waiting.push({ resolve, reject }) })
    if (!checking) {
      checking = true
      checkForWaiting().catch(() => {})
    }
    return await checked
  }
  async function checkForWaiting (): Promise<void> {
    try {
      while (waiting.length > 0) {
        await nextTurn()
        const batch = waiting
        waiting = []
        try {
          const checked = await check(0, Infinity)
          for (const { resolve } of batch) resolve(checked)
        } catch (error) {
          for (const { reject } of batch) reject(error)
        }
      }
    } finally {
      // In the turn the last batch was answered in: a request after it starts a new loop.
      checking = false
    }
  }

  /** The whole list's body for `checked` items: one assembly shared by the requests the same check answered. */
  const assembling = new Map<string, { items: readonly Entry[], offset: number, body: Promise<ListBody> }>()
  async function assembleOnce (key: string, items: readonly Entry[], total: number, offset: number, fields: ListFields): Promise<ListBody> {
    const running = assembling.get(key)
    if (running !== undefined && running.items === items && running.offset === offset) return await running.body
    const body = assembleWhole(state, items, total, offset, fields)
    assembling.set(key, { items, offset, body })
    try {
      return await body
    } finally {
      if (assembling.get(key)?.body === body) assembling.delete(key)
    }
  }

  return {
    /** The pool's status record as JSON, or undefined when there is no such pool. */
    async one (id: number): Promise<Buffer | undefined> {
      const token = changeToken()
      const at = now()
      const cached = state.entries.get(id)
      if (cached !== undefined && token !== null && cached.checkedAt === token && fresh(cached, at)) return cached.full
      return await database.read((db) => checkOne(db, state, id, token, at))
    },

    /**
     * The list answer as JSON in two parts, so the body kept need not be copied:
     * pools by id from `offset`, at most `limit`, full records or summaries; then
     * the timestamp (the instant its records were found current at).
     */
    async list ({ offset, limit, fields }: { offset: number, limit: number, fields: ListFields }): Promise<readonly [ListBody, Buffer]> {
      let token = changeToken()
      let at = now()
      const whole = limit === Infinity
      // One answer kept per fields for the whole list (from any offset), so that at most one
      // set of segments per fields is kept alive by an answer kept.
      const key = whole ? `${fields}:all` : `${fields}:${offset}:${limit}`
      // Nothing written anywhere and no time boundary passed since it was assembled: as it is.
      const known = state.answers.get(key)
      if (token !== null && known !== undefined && known.offset === offset && known.token === token && known.generation === state.generation &&
        at.getTime() >= known.builtAt && at.getTime() < known.validUntil) return [known.body, Buffer.from(`"${at.toISOString()}"}`)]
      // The whole list is checked whole (its segments hold every pool), by one check shared by concurrent requests.
      let generation = state.generation
      let page = cachedPage(state, token, at, whole ? 0 : offset, limit)
      if (page === undefined) {
        const checked = whole ? await checkWhole() : await check(offset, limit)
        page = checked.page
        token = checked.token
        at = checked.at
        generation = checked.generation
      }
      const tail = Buffer.from(`"${at.toISOString()}"}`)
      const { items, total } = page
      const last = state.answers.get(key)
      if (last !== undefined && last.offset === offset && last.total === total && sameEntries(last.items, items)) {
        Object.assign(last, { token, generation, ...span(items) })
        return [last.body, tail]
      }
      const body = whole ? await assembleOnce(key, items, total, offset, fields) : pageBody(items, total, fields)
      keep(state, key, { offset, total, items, body, token, generation, ...span(items) })
      return [body, tail]
    }
  }
}

/** An answer's bytes in one Buffer (for tests and small answers). */
export function joined ([body, tail]: readonly [ListBody, Buffer]): Buffer {
  return Buffer.concat([...body.pieces, tail])
}

export type PoolReadModel = ReturnType<typeof createPoolReadModel>
