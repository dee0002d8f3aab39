/**
 * Pool rules: creation with a default strategy, partial updates that always
 * refresh `updated_at` (and restart the strategy's cursor when it changes),
 * deletion, and status records (served by the read model, read-model.ts). Every
 * write declares the pool touched in its unit of work (db/unit-of-work.ts): its
 * change_seq is bumped in the transaction, the change feed told once it commits.
 */
import type { Updateable } from 'kysely'
import { NO_CHANGES, type ChangeFeed } from '../changes.js'
import { isUniqueViolation } from '../db/errors.js'
import type { Db, PoolTable } from '../db/types.js'
import { touched, unitOfWork } from '../db/unit-of-work.js'
import type { Work, WorkRunner } from '../db/work.js'
import { ConflictError, NotFoundError } from '../errors.js'
import { audited, type Actor, type Change } from '../audit/audit.js'
import { storedReplay } from '../rules/stream-settings.js'
import * as repo from './pool.repository.js'
import { checkPolicy, newPoolRow, storedPool, type StoredPool } from './pool.rules.js'
import type {
  CreatePoolInput, PoolCreatedValue, PoolDeletedValue, PoolListQueryValue, PoolUpdatedValue, UpdatePoolInput
} from './pool.schemas.js'
import type { MemberHeads } from './member-heads.js'
import type { StreamCountsOf } from './pool-streams.js'
import { createPoolReadModel, type ListBody } from './read-model.js'

/** The error operations 3, 4 and 5 give for an unknown pool. */
export const poolNotFound = (id: number) => new NotFoundError(`Pool ${id} not found`)
const target = (row: repo.PoolRow) => `pool:${row.id}`
const entry = (action: string, { changes, at }: Change) => ({ action, target, changes, at })

// The write rules, as units of work that compose in one transaction: the service's
// methods run each in its own, an apply of declared state (declared/) runs many in one.

/** Inserts a pool (its fields checked already: storedPool), audited; read models learn of its id at once. */
export function * createPoolWork (db: Db, fields: StoredPool, change: Change): Work<repo.PoolRow> {
  const row = (yield * audited(db, change.actor, entry('pool.create', change), repo.insertPool(db, newPoolRow(fields, change.at)))) as repo.PoolRow
  yield * touched(db, { createdPools: [row.id] })
  return row
}

/**
 * Changes the pool's `fields` (updated_at among them): 404 when there is no such pool,
 * 422 (at `policyLoc`) when its cooldown would exceed its maximum, and a new strategy
 * restarts the cursor (a cursor belongs to the strategy that wrote it).
 */
export function * updatePoolWork (
  db: Db, id: number, fields: Updateable<PoolTable>, change: Change, policyLoc: ReadonlyArray<string | number> = ['body', 'max_cooldown_seconds']
): Work<repo.PoolRow> {
  const before = yield * repo.findPool(db, id)
  if (before === undefined) throw poolNotFound(id)
  checkPolicy(fields.cooldown_seconds ?? before.cooldown_seconds, fields.max_cooldown_seconds ?? before.max_cooldown_seconds, policyLoc)
  const strategyChanged = fields.rotation_strategy !== undefined && fields.rotation_strategy !== before.rotation_strategy
  // Decided afresh on each run of the transaction (PostgreSQL runs it again after a deadlock).
  const written = strategyChanged ? { ...fields, rotation_state: '{}' } : fields
  const row = (yield * audited(db, change.actor, entry('pool.update', change), repo.updatePool(db, id, written))) as repo.PoolRow
  yield * touched(db, { pools: [id] })
  return row
}

/** Deletes a pool with its members and history; undefined (nothing written) when there is none. */
export function * deletePoolWork (db: Db, id: number, change: Change): Work<repo.PoolRow | undefined> {
  const row = yield * audited(db, change.actor, entry('pool.delete', change), repo.deletePool(db, id))
  // No change_seq to bump: the row goes, and readers find its id gone.
  if (row !== undefined) yield * touched(db, { deletedPools: [id] })
  return row
}

export interface PoolServiceDeps {
  /** The database; `changeToken` (DbHandle) lets SQLite reads skip the change check. */
  database: WorkRunner & { changeToken?: () => string | null }
  now: () => Date
  /** This process's committed changes: told of every write here, followed by the read model. */
  changes?: ChangeFeed
  /** The evm members' heads this process tracks, shown in their pools' status records (member-heads.ts). */
  memberHeads?: MemberHeads
  /** This process's streams, shown in the pools' status records (pool-streams.ts). */
  streamCounts?: StreamCountsOf
}

/** Builds the pool service over the database's work runner, a clock and the change feed. */
export function createPoolService ({ database: handle, now, changes = NO_CHANGES, memberHeads, streamCounts }: PoolServiceDeps) {
  const database = unitOfWork(handle, changes)
  const statuses = createPoolReadModel({ database, now, changes, memberHeads, streamCounts })
  return {
    async createPool (input: CreatePoolInput, actor: Actor): Promise<PoolCreatedValue> {
      const created = now()
      const fields = storedPool(input)
      let pool: repo.PoolRow
      try {
        pool = await database.transact((db) => createPoolWork(db, fields, { actor, changes: input, at: created }))
      } catch (error) {
        if (isUniqueViolation(error)) throw new ConflictError(`pool name '${input.name}' already exists`)
        throw error
      }
      return {
        pool_id: pool.id,
        name: pool.name,
        category: pool.category,
        rotation_strategy: pool.rotation_strategy,
        created_at: pool.created_at,
        message: `Pool '${pool.name}' created successfully`
      }
    },

    /** The list answer (operation 1) as JSON in two parts, the records (read-model.ts ListBody) then the timestamp: every pool by id, or the page `query` asks for. */
    async listPoolStatuses (query: PoolListQueryValue = {}): Promise<readonly [ListBody, Buffer]> {
      return await statuses.list({ offset: query.offset ?? 0, limit: query.limit ?? Infinity, fields: query.fields ?? 'full' })
    },

    /** The pool's status record (operation 3) as JSON text. */
    async getPoolStatus (id: number): Promise<Buffer> {
      const json = await statuses.one(id)
      if (json === undefined) throw poolNotFound(id)
      return json
    },

    /** Changes only the fields present and not null; always refreshes updated_at. */
    async updatePool (id: number, input: UpdatePoolInput, actor: Actor): Promise<PoolUpdatedValue> {
      const at = now()
      const fields: Updateable<PoolTable> = { updated_at: at.toISOString() }
      if (input.enabled != null) fields.enabled = input.enabled ? 1 : 0
      if (input.description != null) fields.description = input.description
      if (input.rotation_strategy != null) fields.rotation_strategy = input.rotation_strategy
      if (input.failure_threshold != null) fields.failure_threshold = input.failure_threshold
      if (input.cooldown_seconds != null) fields.cooldown_seconds = input.cooldown_seconds
      if (input.max_cooldown_seconds != null) fields.max_cooldown_seconds = input.max_cooldown_seconds
      if (input.all_down != null) fields.all_down = input.all_down
      if (input.max_attempts != null) fields.max_attempts = input.max_attempts
      if (input.retry_non_idempotent != null) fields.retry_non_idempotent = input.retry_non_idempotent ? 1 : 0
      if (input.forward_client_auth != null) fields.forward_client_auth = input.forward_client_auth ? 1 : 0
      if (input.forbidden_ttl_seconds != null) fields.forbidden_ttl_seconds = input.forbidden_ttl_seconds
      if (input.cache_ttl_seconds != null) fields.cache_ttl_seconds = input.cache_ttl_seconds
      if (input.cache_stale_seconds != null) fields.cache_stale_seconds = input.cache_stale_seconds
      if (input.max_wait_ms != null) fields.max_wait_ms = input.max_wait_ms
      if (input.deadline_ms != null) fields.deadline_ms = input.deadline_ms
      if (input.retry_budget_percent != null) fields.retry_budget_percent = input.retry_budget_percent
      if (input.retry_backoff_ms != null) fields.retry_backoff_ms = input.retry_backoff_ms
      if (input.hedge_after_ms != null) fields.hedge_after_ms = input.hedge_after_ms
      if (input.protocol != null) fields.protocol = input.protocol
      if (input.finality_depth != null) fields.finality_depth = input.finality_depth
      if (input.cache_unfinalized_ms != null) fields.cache_unfinalized_ms = input.cache_unfinalized_ms
      if (input.head_check_interval_s != null) fields.head_check_interval_s = input.head_check_interval_s
      if (input.max_block_lag != null) fields.max_block_lag = input.max_block_lag
      if (input.broadcast_writes != null) fields.broadcast_writes = input.broadcast_writes ? 1 : 0
      if (input.ws_ping_interval_ms != null) fields.ws_ping_interval_ms = input.ws_ping_interval_ms
      if (input.ws_replay != null) fields.ws_replay = storedReplay(input.ws_replay)
      if (input.ws_max_streams != null) fields.ws_max_streams = input.ws_max_streams
      if (input.ws_max_streams_per_client != null) fields.ws_max_streams_per_client = input.ws_max_streams_per_client
      if (input.ws_max_message_bytes != null) fields.ws_max_message_bytes = input.ws_max_message_bytes
      if (input.ws_send_buffer_bytes != null) fields.ws_send_buffer_bytes = input.ws_send_buffer_bytes
      if (input.ws_idle_timeout_ms != null) fields.ws_idle_timeout_ms = input.ws_idle_timeout_ms
      const pool = await database.transact((db) => updatePoolWork(db, id, fields, { actor, changes: input, at }))
      return {
        pool_id: pool.id,
        name: pool.name,
        rotation_strategy: pool.rotation_strategy,
        enabled: pool.enabled === 1,
        updated_at: pool.updated_at,
        message: `Pool '${pool.name}' updated successfully`
      }
    },

    async deletePool (id: number, actor: Actor): Promise<PoolDeletedValue> {
      const pool = await database.transact((db) => deletePoolWork(db, id, { actor, changes: {}, at: now() }))
      if (pool === undefined) throw poolNotFound(id)
      return { message: `Pool '${pool.name}' deleted successfully`, pool_id: pool.id }
    }
  }
}

export type PoolService = ReturnType<typeof createPoolService>
