/**
 * Pools as code: the plan that turns what is stored into a declared state, its
 * application in ONE transaction (every pool locked first, the plan made again
 * from what is stored then, each step made by the write rule the API's own call
 * uses — pools/ and providers/ services' units of work, which audit it under the
 * caller, `config` at start-up, and declare what it touched — so a rule holds
 * whichever door a change comes in by), and the stored state
 * exported as a declared state that applies back to no change once its `${…}`
 * placeholders are filled in (credential headers and secret-looking query values:
 * their values are never shown).
 */
import { createHash } from 'node:crypto'
import { NO_CHANGES, type ChangeFeed } from '../changes.js'
import { isUniqueViolation } from '../db/errors.js'
import type { Db } from '../db/types.js'
import { unitOfWork } from '../db/unit-of-work.js'
import type { Work, WorkRunner } from '../db/work.js'
import { ConflictError } from '../errors.js'
import { SECRET_NAME } from '../http/redact.js'
import type { Actor, Change } from '../audit/audit.js'
import { addMemberWork, removeMemberWork, updateMemberWork } from '../pools/member.service.js'
import { createPoolWork, deletePoolWork, updatePoolWork } from '../pools/pool.service.js'
import { createProviderWork, deleteProviderWork, updateProviderWork } from '../providers/provider.service.js'
import { lockAllPools, readCurrent } from './declared.repository.js'
import { describeStep, desiredState, planSteps, type Current, type Desired, type Step } from './declared.rules.js'
import type { DeclaredStateValue, PlanValue } from './declared.schemas.js'

/** The fingerprint of a plan's changes (what a reviewer saw). */
function fingerprintOf (steps: readonly Step[]): string {
  return createHash('sha256').update(JSON.stringify(steps.map(describeStep))).digest('hex')
}

/** A plan's answer. */
function toPlan (steps: readonly Step[], applied: boolean): PlanValue {
  const changes = steps.map(describeStep)
  const count = (action: string) => changes.filter((c) => c.action === action).length
  return { changes, summary: { create: count('create'), update: count('update'), delete: count('delete') }, applied, fingerprint: fingerprintOf(steps) }
}

/** 409 when the changes to make are not those reviewed (`expect`, a plan's fingerprint). */
function checkExpected (steps: readonly Step[], expect: string | undefined): void {
  if (expect !== undefined && fingerprintOf(steps) !== expect) {
    throw new ConflictError('The stored state changed since that plan: plan again to see what applying would do now')
  }
}

/** `NAME` as an environment variable's part: upper case, anything else `_`. */
const envPart = (name: string) => name.toUpperCase().replace(/[^A-Z0-9]+/g, '_').replace(/^_|_$/g, '')

/**
 * Each provider's part of its placeholders' names: its name as a variable's part
 * (`portal-a` → `PORTAL_A`), with its id added when another provider's name gives
 * the same part (`portal-a` and `portal_a`), so no two credentials share a variable.
 */
function placeholderParts (providers: ReadonlyArray<{ id: number, name: string }>): Map<number, string> {
  const count = new Map<string, number>()
  for (const p of providers) count.set(envPart(p.name), (count.get(envPart(p.name)) ?? 0) + 1)
  return new Map(providers.map((p) => {
    const part = envPart(p.name)
    return [p.id, part === '' || (count.get(part) ?? 0) > 1 ? `${part === '' ? 'PROVIDER' : part}_${p.id}` : part]
  }))
}

const placeholder = (part: string, what: string) => `\${SOURCEPOOL_${part}_${envPart(what)}}`

/** A URL or path with the values of its secret-looking query parameters as placeholders. */
function withQueryPlaceholders (target: string, part: string): string {
  const queryAt = target.indexOf('?')
  if (queryAt === -1) return target
  const pairs = target.slice(queryAt + 1).split('&').map((pair) => {
    const equals = pair.indexOf('=')
    if (equals === -1) return pair
    const name = pair.slice(0, equals)
    return SECRET_NAME.test(name) ? `${name}=${placeholder(part, name)}` : pair
  })
  return `${target.slice(0, queryAt)}?${pairs.join('&')}`
}

/** A stored check as exported: its path's secret-looking query values as placeholders. */
function exportedCheck (stored: string, part: string): NonNullable<DeclaredStateValue['providers']>[number]['health_check'] {
  const check = JSON.parse(stored) as { path: string }
  return { ...check, path: withQueryPlaceholders(check.path, part) } as never
}

/** Applies `desired` in the unit of work it is given (one transaction); answers its steps. */
function * applyWork (db: Db, desired: Desired, actor: Actor, at: Date, expect: string | undefined): Work<Step[]> {
  yield * lockAllPools(db)
  const current: Current = yield * readCurrent(db)
  const steps = planSteps(current, desired)
  checkExpected(steps, expect)
  const providerIds = new Map(current.providers.map((p) => [p.name, p.id]))
  const poolIds = new Map(current.pools.map((p) => [p.name, p.id]))
  const iso = at.toISOString()
  for (const step of steps) {
    // Each step through the write rule the API's own call runs, audited with the fields it changes.
    const change: Change = { actor, changes: describeStep(step).fields, at }
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
  return steps
}

/** Builds the declared-state service over the database, a clock and the change feed. */
export function createDeclaredService ({ database: handle, now, changes = NO_CHANGES }: { database: WorkRunner, now: () => Date, changes?: ChangeFeed }) {
  const database = unitOfWork(handle, changes)
  /**
   * Applies a checked state; answers what it changed (nothing: no write at all). With
   * `expect`, only if the changes are those of the plan with that fingerprint.
   */
  async function applyDesired (desired: Desired, actor: Actor, expect?: string): Promise<PlanValue> {
    // Nothing to do reads only: no transaction, no lock, no audit record.
    const planned = planSteps(await database.read(readCurrent), desired)
    if (planned.length === 0) {
      checkExpected(planned, expect)
      return toPlan(planned, true)
    }
    let applied: Step[]
    try {
      applied = await database.transact((db) => applyWork(db, desired, actor, now(), expect))
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictError('A provider or pool of the same name was created meanwhile; plan again')
      throw error
    }
    return toPlan(applied, true)
  }

  return {
    /** What applying `input` would change; changes nothing. `at` prefixes the `loc` of a 422. */
    async plan (input: DeclaredStateValue, at: ReadonlyArray<string | number> = ['body']): Promise<PlanValue> {
      const desired = desiredState(input, at)
      return toPlan(planSteps(await database.read(readCurrent), desired), false)
    },

    /** Makes the stored state what `input` declares, in one transaction (only as planned, with `expect`). */
    async apply (input: DeclaredStateValue, actor: Actor, expect?: string, at: ReadonlyArray<string | number> = ['body']): Promise<PlanValue> {
      return await applyDesired(desiredState(input, at), actor, expect)
    },

    applyDesired,

    /** The stored state as a declared state (nulls and defaults left out where the file's defaults say the same). */
    async exportState (): Promise<DeclaredStateValue> {
      const current = await database.read(readCurrent)
      const providerNames = new Map(current.providers.map((p) => [p.id, p.name]))
      const parts = placeholderParts(current.providers)
      return {
        providers: current.providers.map((p) => ({ part: parts.get(p.id) as string, p })).map(({ part, p }) => ({
          name: p.name,
          ...(p.category === null ? {} : { category: p.category }),
          // Secret-looking query values (`?api_key=…`) are credentials too: placeholders, never in the file.
          ...(p.base_url === null ? {} : { base_url: withQueryPlaceholders(p.base_url, part) }),
          ...(p.description === null ? {} : { description: p.description }),
          ...(p.rate_limit_requests === null ? {} : { rate_limit: { requests: p.rate_limit_requests, per: p.rate_limit_per as 'second' } }),
          ...(p.timeout_ms === null ? {} : { timeout_ms: p.timeout_ms }),
          ...(p.auth_headers === null
            ? {}
            : { auth_headers: Object.fromEntries(Object.keys(JSON.parse(p.auth_headers) as object).map((header) => [header, placeholder(part, header)])) }),
          ...(p.health_check === null ? {} : { health_check: exportedCheck(p.health_check, part) })
        })),
        pools: current.pools.map((p) => ({
          name: p.name,
          category: p.category,
          ...(p.description === null ? {} : { description: p.description }),
          rotation_strategy: p.rotation_strategy as 'round_robin',
          enabled: p.enabled === 1,
          failure_threshold: p.failure_threshold,
          cooldown_seconds: p.cooldown_seconds,
          max_cooldown_seconds: p.max_cooldown_seconds,
          all_down: p.all_down as 'soonest',
          max_attempts: p.max_attempts,
          retry_non_idempotent: p.retry_non_idempotent === 1,
          forward_client_auth: p.forward_client_auth === 1,
          forbidden_ttl_seconds: p.forbidden_ttl_seconds,
          members: current.members.filter((m) => m.pool_id === p.id).map((m) => ({
            provider: providerNames.get(m.provider_id) as string, priority: m.priority, weight: m.weight, enabled: m.enabled === 1
          }))
        }))
      }
    }
  }
}

export type DeclaredService = ReturnType<typeof createDeclaredService>
