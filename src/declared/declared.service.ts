/**
 * Pools as code: the plan that turns what is stored into a declared state, its
 * application in ONE transaction (every pool locked first, the plan made again
 * from what is stored then, each step made by the write rule the API's own call
 * uses — pools/ and providers/ services' units of work, which audit it under the
 * caller, `config` at start-up, and declare what it touched — so a rule holds
 * whichever door a change comes in by), and the stored state
 * exported as a declared state that applies back to no change once its `${…}`
 * placeholders are filled in (declared.export.ts: no credential's value is ever
 * written; nor shown in a plan, describeStep).
 */
import { NO_CHANGES, type ChangeFeed } from '../changes.js'
import { isUniqueViolation } from '../db/errors.js'
import type { Db } from '../db/types.js'
import { unitOfWork } from '../db/unit-of-work.js'
import { breathing, nextTurn, paced, type Work, type WorkRunner } from '../db/work.js'
import { ConflictError } from '../errors.js'
import type { Actor, Change } from '../audit/audit.js'
import { addMemberWork, removeMemberWork, updateMemberWork } from '../pools/member.service.js'
import { createPoolWork, deletePoolWork, updatePoolWork } from '../pools/pool.service.js'
import { createProviderWork, deleteProviderWork, updateProviderWork } from '../providers/provider.service.js'
import { describing, planValue, type Described } from './declared.answer.js'
import { exportedState } from './declared.export.js'
import { lockAllPools, readCurrent } from './declared.repository.js'
import { desiring, type Desired } from './declared.desired.js'
import { planning, type Current } from './declared.rules.js'
import type { ChangeValue, DeclaredStateValue, PlanValue } from './declared.schemas.js'

/** 409 when the changes to make are not those reviewed (`expect`, a plan's fingerprint: declared.answer.ts). */
function checkExpected ({ fingerprint }: Described, expect: string | undefined): void {
  if (expect !== undefined && fingerprint !== expect) {
    throw new ConflictError('The stored state changed since that plan: plan again to see what applying would do now')
  }
}

/**
 * Applies `desired` in the unit of work it is given (one transaction); answers its
 * changes. A state of thousands of pools lets the runner pause between pieces
 * (breathe, breathing) and statements: other requests are served meanwhile, and
 * nothing else runs on the transaction.
 */
function * applyWork (db: Db, desired: Desired, actor: Actor, at: Date, expect: string | undefined): Work<Described> {
  yield * lockAllPools(db)
  const current: Current = yield * readCurrent(db)
  const steps = yield * breathing(planning(current, desired))
  const described = yield * breathing(describing(steps))
  checkExpected(described, expect)
  const providerIds = new Map(current.providers.map((p) => [p.name, p.id]))
  const poolIds = new Map(current.pools.map((p) => [p.name, p.id]))
  const iso = at.toISOString()
  for (const [i, step] of steps.entries()) {
    // Each step through the write rule the API's own call runs, audited with the fields it changes.
    const change: Change = { actor, changes: (described.changes[i] as ChangeValue).fields, at }
    if (step.kind === 'provider') {
      if (step.action === 'create') {
        const row = yield * createProviderWork(db, step.desired, change)
        providerIds.set(row.name, row.id)
      } else if (step.action === 'delete') {
        yield * deleteProviderWork(db, step.id, change)
      } else {
        const { name: _name, health_check: healthCheck, ...fields } = step.desired
        yield * updateProviderWork(db, step.id, { ...fields, updated_at: iso }, healthCheck ?? null, change)
      }
    } else if (step.kind === 'pool') {
      if (step.action === 'create') {
        const { members: _members, ...fields } = step.desired
        const row = yield * createPoolWork(db, fields, change)
        poolIds.set(row.name, row.id)
      } else if (step.action === 'delete') {
        yield * deletePoolWork(db, step.id, change)
      } else {
        const { members: _members, name: _name, ...fields } = step.desired
        yield * updatePoolWork(db, step.id, { ...fields, updated_at: iso }, change)
      }
    } else if (step.action === 'delete') {
      yield * removeMemberWork(db, step.poolId, step.providerId, change)
    } else {
      const poolId = poolIds.get(step.pool) as number
      const providerId = providerIds.get(step.desired.provider) as number
      const { provider: _provider, ...fields } = step.desired
      if (step.action === 'create') yield * addMemberWork(db, poolId, providerId, fields, change)
      else yield * updateMemberWork(db, poolId, providerId, fields, change)
    }
  }
  return described
}

/** Builds the declared-state service over the database, a clock and the change feed. */
export function createDeclaredService ({ database: handle, now, changes = NO_CHANGES }: { database: WorkRunner, now: () => Date, changes?: ChangeFeed }) {
  const database = unitOfWork(handle, changes)
  /** The plan of `desired` against what is stored now, and its changes described (a piece at a time). */
  async function planOf (desired: Desired): Promise<Described> {
    const current = await database.read(readCurrent)
    return await paced(describing(await paced(planning(current, desired))))
  }

  /**
   * Applies a checked state; answers what it changed (nothing: no write at all). With
   * `expect`, only if the changes are those of the plan with that fingerprint.
   */
  async function applyDesired (desired: Desired, actor: Actor, expect?: string): Promise<PlanValue> {
    // Nothing to do reads only: no transaction, no lock, no audit record.
    const planned = await planOf(desired)
    if (planned.changes.length === 0) {
      checkExpected(planned, expect)
      return planValue(planned, true)
    }
    let applied: Described
    try {
      applied = await database.transact((db) => applyWork(db, desired, actor, now(), expect))
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictError('A provider or pool of the same name was created meanwhile; plan again')
      throw error
    }
    return planValue(applied, true)
  }

  /** `input` checked and in stored form, a piece at a time (a large body has just been parsed and validated). */
  async function checked (input: DeclaredStateValue, at: ReadonlyArray<string | number>): Promise<Desired> {
    await nextTurn()
    return await paced(desiring(input, at))
  }

  return {
    /** What applying `input` would change; changes nothing. `at` prefixes the `loc` of a 422. */
    async plan (input: DeclaredStateValue, at: ReadonlyArray<string | number> = ['body']): Promise<PlanValue> {
      return planValue(await planOf(await checked(input, at)), false)
    },

    /** Makes the stored state what `input` declares, in one transaction (only as planned, with `expect`). */
    async apply (input: DeclaredStateValue, actor: Actor, expect?: string, at: ReadonlyArray<string | number> = ['body']): Promise<PlanValue> {
      return await applyDesired(await checked(input, at), actor, expect)
    },

    applyDesired,

    /** The stored state as a declared state, credentials as placeholders (declared.export.ts). */
    async exportState (): Promise<DeclaredStateValue> {
      return exportedState(await database.read(readCurrent))
    }
  }
}

export type DeclaredService = ReturnType<typeof createDeclaredService>
