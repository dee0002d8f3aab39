/**
 * The read model of pool status records (operations 1 and 3): each pool's record
 * kept serialised, as the bytes Fastify would have written, and rebuilt only when
 * the pool changed or a time boundary passed (a cooldown ending, a quota window
 * ending: see pool-status.ts `nextChangeAt`). Otherwise a read costs one
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
 */
import type { ChangeFeed } from '../changes.js'
import type { Db } from '../db/types.js'
import type { Work, WorkRunner } from '../db/work.js'
import { buildPoolStatus, toPoolSummary } from './pool-status.js'
import { findChangeSeq, findPool, listEveryPoolChangeSeq } from './pool.repository.js'

/** Which records a list carries. */
export type ListFields = 'full' | 'summary'

interface Entry {
  readonly changeSeq: number
  readonly full: Buffer
  readonly summary: Buffer
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
}

const LIST_OPEN = Buffer.from('{"pools":[')
const COMMA = Buffer.from(',')
/** List answers (pages, full or summary) kept assembled. */
const HEADS_KEPT = 8

function * rebuild (db: Db, id: number, at: Date): Work<Entry | undefined> {
  const pool = yield * findPool(db, id)
  if (pool === undefined) return undefined
  const built = yield * buildPoolStatus(db, pool, at)
  return {
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
interface ListHead {
  readonly total: number
  readonly items: Entry[]
  readonly head: Buffer
  /** The change token and feed generation its entries were found current at. */
  token: string | null
  generation: number
  /** Its entries are all exact from builtAt until just before validUntil (ms). */
  builtAt: number
  validUntil: number
}

const fresh = (entry: Entry, at: Date) => at.getTime() >= entry.builtAt && at.getTime() < entry.validUntil

/** What the read model keeps: its entries, the pool ids, and the list answers assembled. */
interface ReadModelState {
  readonly entries: Map<number, Entry>
  /** Every pool id, by id, as found at `idsCheckedAt`; null when unknown. */
  ids: number[] | null
  idsCheckedAt: string | null
  /** Recent list answers up to their timestamp, by page, each reused while its entries stay the same. */
  readonly heads: Map<string, ListHead>
  /** Moves with every change the feed tells, so an answer assembled before it is not served as it is. */
  generation: number
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

/** The page's entries and the number of pools, found current at `token`. */
function * checkPage (db: Db, state: ReadModelState, token: string | null, at: Date, offset: number, limit: number): Work<{ items: Entry[], total: number }> {
  const { entries } = state
  const rows = yield * listEveryPoolChangeSeq(db)
  const seen = new Set<number>()
  for (const row of rows) {
    seen.add(row.id)
    const entry = entries.get(row.id)
    if (entry === undefined) continue
    if (entry.changeSeq !== row.change_seq) entries.delete(row.id)
    else entry.checkedAt = token
  }
  for (const id of entries.keys()) if (!seen.has(id)) entries.delete(id)
  const ids = rows.map((row) => row.id)
  state.ids = ids
  state.idsCheckedAt = token
  const items: Entry[] = []
  for (const id of ids.slice(offset, offset + limit)) {
    let entry = entries.get(id)
    if (entry === undefined || !fresh(entry, at)) {
      entry = yield * rebuild(db, id, at)
      // Deleted since the ids were read (PostgreSQL reads are not one snapshot).
      if (entry === undefined) continue
      entry.checkedAt = token
      entries.set(id, entry)
    }
    items.push(entry)
  }
  return { items, total: ids.length }
}

/** The page from memory when nothing can have changed since it was last checked, else undefined. */
function cachedPage (state: ReadModelState, token: string | null, at: Date, offset: number, limit: number): { items: Entry[], total: number } | undefined {
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
 * `{"pools":[…],"total":N,"timestamp":` for these entries (found current at `token`),
 * reused while they stay the same.
 */
function listHead (state: ReadModelState, key: string, items: Entry[], total: number, fields: ListFields, token: string | null): Buffer {
  const { heads } = state
  const current = { token, generation: state.generation, builtAt: -Infinity, validUntil: Infinity }
  for (const entry of items) {
    current.builtAt = Math.max(current.builtAt, entry.builtAt)
    current.validUntil = Math.min(current.validUntil, entry.validUntil)
  }
  const last = heads.get(key)
  if (last !== undefined && last.total === total && last.items.length === items.length &&
    last.items.every((entry, i) => entry === items[i])) {
    Object.assign(last, current)
    return last.head
  }
  const parts: Buffer[] = [LIST_OPEN]
  items.forEach((entry, i) => {
    if (i > 0) parts.push(COMMA)
    parts.push(fields === 'summary' ? entry.summary : entry.full)
  })
  parts.push(Buffer.from(`],"total":${total},"timestamp":`))
  const head = Buffer.concat(parts)
  heads.delete(key)
  if (heads.size >= HEADS_KEPT) heads.delete(heads.keys().next().value as string)
  heads.set(key, { total, items, head, ...current })
  return head
}

/** One pool's record after a change check: its entry when still current, else rebuilt (undefined: no such pool). */
function * checkOne (db: Db, state: ReadModelState, id: number, token: string | null, at: Date): Work<Buffer | undefined> {
  const seq = yield * findChangeSeq(db, id)
  const entry = state.entries.get(id)
  if (seq !== undefined && entry !== undefined && entry.changeSeq === seq && fresh(entry, at)) {
    entry.checkedAt = token
    return entry.full
  }
  const rebuilt = seq === undefined ? undefined : yield * rebuild(db, id, at)
  if (rebuilt === undefined) {
    state.entries.delete(id)
    return undefined
  }
  rebuilt.checkedAt = token
  state.entries.set(id, rebuilt)
  return rebuilt.full
}

/** Builds the read model and starts following `changes`. */
export function createPoolReadModel ({ database, now, changes }: ReadModelDeps) {
  const changeToken = database.changeToken ?? (() => null)
  const state: ReadModelState = { entries: new Map(), ids: null, idsCheckedAt: null, heads: new Map(), generation: 0 }
  changes.listen((change) => { forget(state, change) })

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
     * The list answer as JSON in two parts, so the cached one need not be copied:
     * pools by id from `offset`, at most `limit`, full records or summaries; then
     * the timestamp.
     */
    async list ({ offset, limit, fields }: { offset: number, limit: number, fields: ListFields }): Promise<readonly [Buffer, Buffer]> {
      const token = changeToken()
      const at = now()
      const tail = Buffer.from(`"${at.toISOString()}"}`)
      const key = `${fields}:${offset}:${limit}`
      // Nothing written anywhere and no time boundary passed since it was assembled: as it is.
      const known = state.heads.get(key)
      if (token !== null && known !== undefined && known.token === token && known.generation === state.generation &&
        at.getTime() >= known.builtAt && at.getTime() < known.validUntil) return [known.head, tail]
      const page = cachedPage(state, token, at, offset, limit) ?? await database.read((db) => checkPage(db, state, token, at, offset, limit))
      return [listHead(state, key, page.items, page.total, fields, token), tail]
    }
  }
}

export type PoolReadModel = ReturnType<typeof createPoolReadModel>
