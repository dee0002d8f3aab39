/**
 * Provider rules: unique names, partial updates, deletion that takes the
 * provider's memberships with it while history rows keep their (now nameless) ids,
 * and who sees what: credentials go in `auth_headers` (never in `base_url`'s
 * userinfo); no caller ever sees a stored credential (rules/secrets.ts): `admin`
 * sees `base_url`, `ws_url` and the check path with their secret-looking query values and any
 * password masked, callers below `admin` every query value masked. A URL sent back
 * exactly as it was shown to admin keeps the stored one (its credentials are
 * write-only: to change one, send the whole URL). A change to a provider declares it touched in its unit of
 * work (db/unit-of-work.ts): the change_seq of every pool whose status record shows
 * it (or, for its quota, that it serves) is bumped in the transaction, and the
 * change feed told once it commits. Changed `auth_headers` end the provider's
 * cooldowns for rejected credentials (a 401/402 on the old ones) in every pool.
 */
import type { Updateable } from 'kysely'
import { NO_CHANGES, type ChangeFeed } from '../changes.js'
import { isUniqueViolation } from '../db/errors.js'
import type { ProviderTable } from '../db/types.js'
import { touched, unitOfWork } from '../db/unit-of-work.js'
import type { Db } from '../db/types.js'
import type { Work, WorkRunner } from '../db/work.js'
import { ConflictError, NotFoundError } from '../errors.js'
import { audited, type Actor, type Change } from '../audit/audit.js'
import type { Scope } from '../auth/tokens.js'
import { maskRequestTarget, maskUrl } from '../http/redact.js'
import * as repo from './provider.repository.js'
import { deleteCredentialRefusals } from './refusal.repository.js'
import {
  checkBaseUrl, checkWsUrl, healthCheckChange, needsBaseUrl, newProviderRow, shownRateLimit, storedAuthHeaders, storedHealthCheck, storedMethodCosts, storedMethods,
  storedProvider, storedRateLimit, type StoredProvider
} from './provider.rules.js'
import type { CreateProviderInput, ProviderRecord, UpdateProviderInput } from './provider.schemas.js'

/** The check a caller may see: its credentials masked; for callers below admin, every query value (any may be one). */
function visibleHealthCheck (stored: string | null, callerScope: Scope | null): ProviderRecord['health_check'] {
  if (stored === null) return null
  const check = JSON.parse(stored) as NonNullable<ProviderRecord['health_check']>
  return { ...check, path: maskRequestTarget(check.path, { everyQueryValue: callerScope !== 'admin' }) }
}

/** A URL of the provider (`base_url`, `ws_url`) as a caller may see it, as visibleHealthCheck shows a check's path. */
function visibleUrl (stored: string | null, callerScope: Scope | null): string | null {
  return stored === null ? null : maskUrl(stored, { everyQueryValue: callerScope !== 'admin' })
}

/** The provider's URLs, whose credentials are write-only. */
const URL_FIELDS = ['base_url', 'ws_url'] as const

/**
 * What an update writes of `base_url`, `ws_url` and the check's path: a value sent back
 * exactly as admin was shown it (its credentials masked) keeps the stored one, so a record
 * read, edited elsewhere and sent back whole never overwrites a credential with `***`.
 */
function * keepShownCredentials (db: Db, id: number, fields: Updateable<ProviderTable>, healthCheck: string | null | undefined): Work<string | null | undefined> {
  const sentUrls = URL_FIELDS.filter((field) => typeof fields[field] === 'string')
  const sentCheck = typeof healthCheck === 'string' ? JSON.parse(healthCheck) as { path: string } : undefined
  if (sentUrls.length === 0 && sentCheck === undefined) return healthCheck
  const stored = yield * repo.findProvider(db, id)
  if (stored === undefined) return healthCheck
  for (const field of sentUrls) {
    const sent = fields[field] as string
    const kept = stored[field]
    if (kept !== null && sent !== kept && sent === visibleUrl(kept, 'admin')) fields[field] = kept
  }
  if (sentCheck === undefined || stored.health_check === null) return healthCheck
  const storedPath = (JSON.parse(stored.health_check) as { path: string }).path
  if (sentCheck.path === storedPath || sentCheck.path !== maskRequestTarget(storedPath)) return healthCheck
  return JSON.stringify({ ...sentCheck, path: storedPath })
}

/** Credential header names with their values masked. */
function maskedAuthHeaders (stored: string | null): Record<string, '***'> | null {
  return stored === null ? null : Object.fromEntries(Object.keys(JSON.parse(stored) as object).map((name) => [name, '***' as const]))
}

/**
 * The record `callerScope` may see: credentials masked for everyone (header values,
 * secret-looking query values, a password); below `admin`, every query value of the
 * base URL and the check path too (any may be a credential).
 */
function toRecord (row: repo.ProviderRow, callerScope: Scope | null, batchesRefused: BatchesRefused): ProviderRecord {
  return {
    id: row.id,
    provider_id: row.id,
    name: row.name,
    category: row.category,
    base_url: visibleUrl(row.base_url, callerScope),
    ws_url: visibleUrl(row.ws_url, callerScope),
    description: row.description,
    rate_limit: shownRateLimit(row),
    timeout_ms: row.timeout_ms,
    auth_headers: maskedAuthHeaders(row.auth_headers),
    health_check: visibleHealthCheck(row.health_check, callerScope),
    last_check: row.last_check === null ? null : JSON.parse(row.last_check) as ProviderRecord['last_check'],
    methods: row.methods === null ? null : JSON.parse(row.methods) as ProviderRecord['methods'],
    max_logs_range: row.max_logs_range,
    max_batch_size: row.max_batch_size,
    batches: batchesRefused(row) ? 'refused' : null,
    method_costs: row.method_costs === null ? null : JSON.parse(row.method_costs) as Record<string, number>,
    created_at: row.created_at,
    updated_at: row.updated_at
  }
}

const notFound = (id: number) => new NotFoundError(`Provider ${id} not found`)
const target = (row: repo.ProviderRow) => `provider:${row.id}`
const entry = (action: string, { changes, at }: Change) => ({ action, target, changes, at })

/** Runs `write`, turning a unique-name violation into the 409 the API promises. */
async function guardUniqueName<T> (name: string | null | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write()
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError(`Provider name '${name ?? ''}' already exists`)
    throw error
  }
}

// The write rules, as units of work that compose in one transaction: the service's
// methods run each in its own, an apply of declared state (declared/) runs many in one.

/** Inserts a provider (its fields checked already: storedProvider), audited. */
export function * createProviderWork (db: Db, fields: StoredProvider, change: Change): Work<repo.ProviderRow> {
  return (yield * audited(db, change.actor, entry('provider.create', change), repo.insertProvider(db, newProviderRow(fields, change.at)))) as repo.ProviderRow
}

/**
 * Changes the provider's `fields` and, unless `healthCheck` is undefined, its check (a
 * changed check starts afresh: due at once, streaks at zero; the same check changes
 * nothing of it); a quota lifted (rate_limit_requests set to null), or counting in
 * another unit (requests ↔ credits), forgets its counter.
 * Every pool whose status record shows the provider is touched first (its name shows
 * wherever it is a member, the current provider or in recent history; pools before the
 * provider, as rotations lock them). 404 (nothing written) when there is no such provider.
 */
export function * updateProviderWork (
  db: Db, id: number, fields: Updateable<ProviderTable>, healthCheck: string | null | undefined, change: Change
): Work<repo.ProviderRow> {
  yield * touched(db, { providers: [id], reach: 'shows' })
  const written = { ...fields }
  let newCredentials = false
  const unit = fields.rate_limit_requests == null ? undefined : fields.rate_limit_unit
  if (healthCheck !== undefined || fields.rate_limit_requests === null || unit !== undefined || fields.auth_headers !== undefined) {
    const stored = yield * repo.findProvider(db, id)
    if (stored === undefined) throw notFound(id)
    // What was counted in one unit says nothing in the other: the window starts afresh.
    const recount = (fields.rate_limit_requests === null || (unit !== undefined && unit !== stored.rate_limit_unit)) && stored.rate_limit_requests !== null
    if (recount) Object.assign(written, { quota_window_start: null, quota_used: 0, quota_exhausted_window: null })
    if (healthCheck !== undefined) Object.assign(written, healthCheckChange(stored.health_check, healthCheck, change.at))
    newCredentials = fields.auth_headers !== undefined && fields.auth_headers !== stored.auth_headers
  }
  const updated = yield * audited(db, change.actor, entry('provider.update', change), repo.updateProvider(db, id, written))
  if (updated === undefined) throw notFound(id)
  // New credentials deserve a try: a cooldown for the old ones rejected ends now, and their refusals of resources go.
  if (newCredentials) {
    yield * repo.endCredentialCooldowns(db, id)
    yield * deleteCredentialRefusals(db, id)
  }
  return updated
}

/**
 * Deletes the provider, which takes its memberships and clears it as current provider:
 * every pool whose status record shows it is touched first. 404 when there is none.
 */
export function * deleteProviderWork (db: Db, id: number, change: Change): Work<repo.ProviderRow> {
  yield * touched(db, { providers: [id], reach: 'shows' })
  const deleted = yield * audited(db, change.actor, entry('provider.delete', change), repo.deleteProvider(db, id))
  if (deleted === undefined) throw notFound(id)
  return deleted
}

/**
 * Whether this process learned that the provider, as it is now (unchanged since),
 * refuses upstream batches (proxy/rpc-batch-refusals.ts): the data plane, above this
 * floor, answers it; services.ts hands it down.
 */
export type BatchesRefused = (provider: Pick<repo.ProviderRow, 'id' | 'updated_at' | 'base_url' | 'max_batch_size'>) => boolean

/** No batch refused (a service built without the data plane). */
const NO_REFUSED_BATCHES: BatchesRefused = () => false

/** Builds the provider service over the database's work runner, a clock, the change feed and what the data plane learned of batches. */
export function createProviderService ({ database: handle, now, changes = NO_CHANGES, batchesRefused = NO_REFUSED_BATCHES }: {
  database: WorkRunner, now: () => Date, changes?: ChangeFeed, batchesRefused?: BatchesRefused
}) {
  const database = unitOfWork(handle, changes)
  const toRecordOf = (row: repo.ProviderRow, callerScope: Scope | null): ProviderRecord => toRecord(row, callerScope, batchesRefused)
  return {
    async createProvider (input: CreateProviderInput, actor: Actor, callerScope: Scope | null): Promise<ProviderRecord> {
      const fields = storedProvider(input)
      const at = now()
      const row = await guardUniqueName(input.name, () => database.transact((db) => createProviderWork(db, fields, { actor, changes: input, at })))
      return toRecordOf(row, callerScope)
    },

    /** A page of providers by id (every one without a limit), and how many there are in all. */
    async listProviders (callerScope: Scope | null, page: { offset: number, limit?: number } = { offset: 0 }): Promise<{ providers: ProviderRecord[], total: number }> {
      // The whole list counts itself; only a page needs the count read.
      const whole = page.offset === 0 && page.limit === undefined
      const { rows, total } = await database.read(function * (db) {
        const rows = yield * repo.listProviders(db, page)
        return { rows, total: whole ? rows.length : yield * repo.countProviders(db) }
      })
      return { providers: rows.map((row) => toRecordOf(row, callerScope)), total }
    },

    async getProvider (id: number, callerScope: Scope | null): Promise<ProviderRecord> {
      const row = await database.read((db) => repo.findProvider(db, id))
      if (row === undefined) throw notFound(id)
      return toRecordOf(row, callerScope)
    },

    /**
     * Changes the fields that are present and not null (`methods` `{}` lifts the method
     * rules), and `health_check`, `max_logs_range` and `ws_url` when present (null turns the check off, lifts the limit, clears the URL); always refreshes updated_at. A changed check starts afresh
     * (due at once, streaks at zero); the same check sent again changes nothing of it.
     */
    async updateProvider (id: number, input: UpdateProviderInput, actor: Actor, callerScope: Scope | null): Promise<ProviderRecord> {
      if (input.base_url != null) checkBaseUrl(input.base_url)
      if (input.ws_url != null) checkWsUrl(input.ws_url)
      const healthCheck = input.health_check == null ? input.health_check : storedHealthCheck(input.health_check, ['body', 'health_check'])
      const at = now()
      const fields: Updateable<ProviderTable> = { updated_at: at.toISOString() }
      if (input.name != null) fields.name = input.name
      if (input.category != null) fields.category = input.category
      if (input.base_url != null) fields.base_url = input.base_url
      if (input.description != null) fields.description = input.description
      if (input.timeout_ms != null) fields.timeout_ms = input.timeout_ms
      if (input.max_batch_size != null) fields.max_batch_size = input.max_batch_size
      // Null is no limit: absent changes nothing, null lifts the limit.
      if (input.max_logs_range !== undefined) fields.max_logs_range = input.max_logs_range
      // Null is no URL of its own (streams go to base_url): absent changes nothing, null clears it.
      if (input.ws_url !== undefined) fields.ws_url = input.ws_url
      // An object replaces every credential header; {} removes them.
      if (input.auth_headers != null) fields.auth_headers = storedAuthHeaders(input.auth_headers)
      // An object replaces both lists; {} lifts them (every method).
      if (input.methods != null) fields.methods = storedMethods(input.methods)
      // An object replaces every cost; {} removes them.
      if (input.method_costs != null) fields.method_costs = storedMethodCosts(input.method_costs)
      if (input.rate_limit != null) Object.assign(fields, storedRateLimit(input.rate_limit))
      const row = await guardUniqueName(input.name, () => database.transact(function * (db) {
        const check = yield * keepShownCredentials(db, id, fields, healthCheck)
        const updated = yield * updateProviderWork(db, id, fields, check, { actor, changes: input, at })
        // Rolled back: a check needs somewhere to send it.
        if (updated.health_check !== null && updated.base_url === null) throw needsBaseUrl(input.health_check)
        return updated
      }))
      return toRecordOf(row, callerScope)
    },

    /** Lifts the provider's quota (and forgets its counter). */
    async removeRateLimit (id: number, actor: Actor, callerScope: Scope | null): Promise<ProviderRecord> {
      const at = now()
      const row = await database.transact(function * (db) {
        // The quota shows in its members' records only; pools first, as rotations lock them.
        yield * touched(db, { providers: [id] })
        const updated = yield * audited(db, actor, { action: 'provider.rate_limit.remove', target, changes: {}, at },
          repo.updateProvider(db, id, {
            rate_limit_requests: null,
            rate_limit_unit: 'requests',
            rate_limit_per: null,
            quota_window_start: null,
            quota_used: 0,
            updated_at: at.toISOString()
          }))
        // No such provider: nothing changed, nothing to tell (rolled back).
        if (updated === undefined) throw notFound(id)
        return updated
      })
      return toRecordOf(row, callerScope)
    },

    async deleteProvider (id: number, actor: Actor, callerScope: Scope | null): Promise<ProviderRecord> {
      const row = await database.transact((db) => deleteProviderWork(db, id, { actor, changes: {}, at: now() }))
      return toRecordOf(row, callerScope)
    }
  }
}

export type ProviderService = ReturnType<typeof createProviderService>
