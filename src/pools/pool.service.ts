/**
 * Pool rules: creation with a default strategy, partial updates that always
 * refresh `updated_at` (and restart the strategy's cursor when it changes),
 * deletion, and status records.
 */
import type { Updateable } from 'kysely'
import { isUniqueViolation } from '../db/errors.js'
import type { PoolTable } from '../db/types.js'
import type { WorkRunner } from '../db/work.js'
import { ConflictError, NotFoundError, RequestValidationError } from '../errors.js'
import { DEFAULT_POLICY } from '../rules/health.js'
import { audited, type Actor } from '../audit/audit.js'
import { buildPoolStatuses } from './pool-status.js'
import * as repo from './pool.repository.js'
import type { CreatePoolInput, PoolStatusValue, UpdatePoolInput } from './pool.schemas.js'

/** The error operations 3, 4 and 5 give for an unknown pool. */
export const poolNotFound = (id: number) => new NotFoundError(`Pool ${id} not found`)
const target = (row: repo.PoolRow) => `pool:${row.id}`

/** The cooldown cap may not be below the first cooldown (checked on the values that result). */
function checkPolicy (cooldown: number, max: number): void {
  if (max < cooldown) {
    throw new RequestValidationError([{
      loc: ['body', 'max_cooldown_seconds'],
      msg: `ensure this value is greater than or equal to cooldown_seconds (${cooldown})`,
      type: 'value_error.number.not_ge',
      ctx: { limit_value: cooldown }
    }])
  }
}

/** Builds the pool service over the database's work runner and a clock. */
export function createPoolService ({ database, now }: { database: WorkRunner, now: () => Date }) {
  return {
    async createPool (input: CreatePoolInput, actor: Actor): Promise<repo.PoolRow> {
      const created = now()
      const at = created.toISOString()
      const cooldown = input.cooldown_seconds ?? DEFAULT_POLICY.cooldown_seconds
      const maxCooldown = input.max_cooldown_seconds ?? Math.max(DEFAULT_POLICY.max_cooldown_seconds, cooldown)
      checkPolicy(cooldown, maxCooldown)
      try {
        return await database.transact((db) => audited(db, actor, { action: 'pool.create', target, changes: input, at: created }, repo.insertPool(db, {
          name: input.name,
          category: input.category,
          description: input.description ?? null,
          rotation_strategy: input.rotation_strategy ?? 'round_robin',
          enabled: 1,
          created_at: at,
          updated_at: at,
          current_provider_id: null,
          last_rotation: null,
          rotation_state: '{}',
          failure_threshold: input.failure_threshold ?? DEFAULT_POLICY.failure_threshold,
          cooldown_seconds: cooldown,
          max_cooldown_seconds: maxCooldown,
          all_down: input.all_down ?? DEFAULT_POLICY.all_down,
          max_attempts: input.max_attempts ?? 3,
          retry_non_idempotent: input.retry_non_idempotent === true ? 1 : 0,
          forward_client_auth: input.forward_client_auth === true ? 1 : 0,
          forbidden_ttl_seconds: input.forbidden_ttl_seconds ?? 3600
        }))) as repo.PoolRow
      } catch (error) {
        if (isUniqueViolation(error)) throw new ConflictError(`pool name '${input.name}' already exists`)
        throw error
      }
    },

    async listPoolStatuses (): Promise<PoolStatusValue[]> {
      return await database.read(function * (db) {
        return yield * buildPoolStatuses(db, yield * repo.listPools(db), now())
      })
    },

    async getPoolStatus (id: number): Promise<PoolStatusValue> {
      return await database.read(function * (db) {
        const pool = yield * repo.findPool(db, id)
        if (pool === undefined) throw poolNotFound(id)
        return (yield * buildPoolStatuses(db, [pool], now()))[0] as PoolStatusValue
      })
    },

    /** Changes only the fields present and not null; always refreshes updated_at. */
    async updatePool (id: number, input: UpdatePoolInput, actor: Actor): Promise<repo.PoolRow> {
      const at = now()
      const changes: Updateable<PoolTable> = { updated_at: at.toISOString() }
      if (input.enabled != null) changes.enabled = input.enabled ? 1 : 0
      if (input.description != null) changes.description = input.description
      if (input.rotation_strategy != null) changes.rotation_strategy = input.rotation_strategy
      if (input.failure_threshold != null) changes.failure_threshold = input.failure_threshold
      if (input.cooldown_seconds != null) changes.cooldown_seconds = input.cooldown_seconds
      if (input.max_cooldown_seconds != null) changes.max_cooldown_seconds = input.max_cooldown_seconds
      if (input.all_down != null) changes.all_down = input.all_down
      if (input.max_attempts != null) changes.max_attempts = input.max_attempts
      if (input.retry_non_idempotent != null) changes.retry_non_idempotent = input.retry_non_idempotent ? 1 : 0
      if (input.forward_client_auth != null) changes.forward_client_auth = input.forward_client_auth ? 1 : 0
      if (input.forbidden_ttl_seconds != null) changes.forbidden_ttl_seconds = input.forbidden_ttl_seconds
      return await database.transact(function * (db) {
        const before = yield * repo.findPool(db, id)
        if (before === undefined) throw poolNotFound(id)
        checkPolicy(changes.cooldown_seconds ?? before.cooldown_seconds, changes.max_cooldown_seconds ?? before.max_cooldown_seconds)
        // A cursor belongs to the strategy that wrote it.
        if (changes.rotation_strategy !== undefined && changes.rotation_strategy !== before.rotation_strategy) {
          changes.rotation_state = '{}'
        }
        return (yield * audited(db, actor, { action: 'pool.update', target, changes: input, at }, repo.updatePool(db, id, changes))) as repo.PoolRow
      })
    },

    async deletePool (id: number, actor: Actor): Promise<repo.PoolRow> {
      const row = await database.transact((db) => audited(db, actor, { action: 'pool.delete', target, changes: {}, at: now() }, repo.deletePool(db, id)))
      if (row === undefined) throw poolNotFound(id)
      return row
    }
  }
}

export type PoolService = ReturnType<typeof createPoolService>
