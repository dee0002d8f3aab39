/**
 * Pool rules: creation with a default strategy, partial updates that always
 * refresh `updated_at` (and restart the strategy's cursor when it changes),
 * deletion, and status records.
 */
import type { Updateable } from 'kysely'
import { isUniqueViolation } from '../db/errors.js'
import type { PoolTable } from '../db/types.js'
import type { WorkRunner } from '../db/work.js'
import { ConflictError, NotFoundError } from '../errors.js'
import { buildPoolStatuses } from './pool-status.js'
import * as repo from './pool.repository.js'
import type { CreatePoolInput, PoolStatusValue, UpdatePoolInput } from './pool.schemas.js'

/** The error operations 3, 4 and 5 give for an unknown pool. */
export const poolNotFound = (id: number) => new NotFoundError(`Pool ${id} not found`)

/** Builds the pool service over the database's work runner and a clock. */
export function createPoolService ({ database, now }: { database: WorkRunner, now: () => Date }) {
  return {
    async createPool (input: CreatePoolInput): Promise<repo.PoolRow> {
      const at = now().toISOString()
      try {
        return await database.transact((db) => repo.insertPool(db, {
          name: input.name,
          category: input.category,
          description: input.description ?? null,
          rotation_strategy: input.rotation_strategy ?? 'round_robin',
          enabled: 1,
          created_at: at,
          updated_at: at,
          current_provider_id: null,
          last_rotation: null,
          rotation_state: '{}'
        }))
      } catch (error) {
        if (isUniqueViolation(error)) throw new ConflictError(`pool name '${input.name}' already exists`)
        throw error
      }
    },

    async listPoolStatuses (): Promise<PoolStatusValue[]> {
      return await database.read(function * (db) {
        return yield * buildPoolStatuses(db, yield * repo.listPools(db))
      })
    },

    async getPoolStatus (id: number): Promise<PoolStatusValue> {
      return await database.read(function * (db) {
        const pool = yield * repo.findPool(db, id)
        if (pool === undefined) throw poolNotFound(id)
        return (yield * buildPoolStatuses(db, [pool]))[0] as PoolStatusValue
      })
    },

    /** Changes only the fields present and not null; always refreshes updated_at. */
    async updatePool (id: number, input: UpdatePoolInput): Promise<repo.PoolRow> {
      const changes: Updateable<PoolTable> = { updated_at: now().toISOString() }
      if (input.enabled != null) changes.enabled = input.enabled ? 1 : 0
      if (input.description != null) changes.description = input.description
      if (input.rotation_strategy != null) changes.rotation_strategy = input.rotation_strategy
      return await database.transact(function * (db) {
        const before = yield * repo.findPool(db, id)
        if (before === undefined) throw poolNotFound(id)
        // A cursor belongs to the strategy that wrote it.
        if (changes.rotation_strategy !== undefined && changes.rotation_strategy !== before.rotation_strategy) {
          changes.rotation_state = '{}'
        }
        return (yield * repo.updatePool(db, id, changes)) as repo.PoolRow
      })
    },

    async deletePool (id: number): Promise<repo.PoolRow> {
      const row = await database.transact((db) => repo.deletePool(db, id))
      if (row === undefined) throw poolNotFound(id)
      return row
    }
  }
}

export type PoolService = ReturnType<typeof createPoolService>
