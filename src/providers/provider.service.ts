/**
 * Provider rules: unique names, partial updates, deletion that takes the
 * provider's memberships with it while history rows keep their (now nameless) ids,
 * and who sees what: credentials go in `auth_headers` (never in `base_url`'s
 * userinfo), and callers below `admin` see `base_url` with its query values and
 * any password masked. A change to a provider bumps, in its transaction, the
 * change_seq of every pool whose status record shows it, and tells the change
 * feed once it has committed.
 */
import type { Updateable } from 'kysely'
import { NO_CHANGES, type ChangeFeed } from '../changes.js'
import { isUniqueViolation } from '../db/errors.js'
import type { ProviderTable } from '../db/types.js'
import type { WorkRunner } from '../db/work.js'
import { ConflictError, NotFoundError, RequestValidationError } from '../errors.js'
import { CHECK_DEFAULTS, statusRange, type HealthCheck } from '../rules/health-check.js'
import type { QuotaPeriod } from '../rules/quota.js'
import { assertSafePath, UnsafePathError } from '../rules/upstream-url.js'
import { audited, type Actor } from '../audit/audit.js'
import type { Scope } from '../auth/tokens.js'
import { maskRequestTarget, maskUrl } from '../http/redact.js'
import { touchPoolsShowingProvider } from './provider-mentions.repository.js'
import * as repo from './provider.repository.js'
import { RESERVED_HEADERS, type CreateProviderInput, type HealthCheckInputValue, type ProviderRecord, type UpdateProviderInput } from './provider.schemas.js'

/** The stored form of credential headers (names lower-cased), or null for none; 422 for a reserved name. */
function storedAuthHeaders (headers: Record<string, string>): string | null {
  const entries = Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value] as const)
  const reserved = entries.filter(([name]) => RESERVED_HEADERS.includes(name))
  if (reserved.length > 0) {
    throw new RequestValidationError(reserved.map(([name]) => ({
      loc: ['body', 'auth_headers', name], msg: `the proxy manages ${name} itself; it cannot be a credential header`, type: 'value_error.header.reserved'
    })))
  }
  return entries.length === 0 ? null : JSON.stringify(Object.fromEntries(entries))
}

/**
 * 422 for a base URL that is not a URL, or that carries userinfo: credentials go in
 * `auth_headers`, where they are never shown.
 */
function checkBaseUrl (baseUrl: string): void {
  let url: URL
  try {
    url = new URL(baseUrl)
  } catch {
    throw new RequestValidationError([{ loc: ['body', 'base_url'], msg: 'invalid or missing URL', type: 'value_error.url' }])
  }
  if (url.username !== '' || url.password !== '') {
    throw new RequestValidationError([{
      loc: ['body', 'base_url'],
      msg: 'base_url may not carry credentials (user:password@); put them in auth_headers, e.g. {"authorization": "Basic <base64 of user:password>"}',
      type: 'value_error.url.userinfo'
    }])
  }
}

/**
 * The stored form of a health check, defaults filled in; 422 for a path that could
 * not be sent under the base URL, a range that is empty, or a timeout longer than
 * the interval (a check would still run when the next one is due).
 */
function storedHealthCheck (input: HealthCheckInputValue): string {
  const check: HealthCheck = {
    path: input.path,
    interval_s: input.interval_s ?? CHECK_DEFAULTS.interval_s,
    timeout_ms: input.timeout_ms ?? CHECK_DEFAULTS.timeout_ms,
    expect_status: input.expect_status ?? CHECK_DEFAULTS.expect_status,
    healthy_threshold: input.healthy_threshold ?? CHECK_DEFAULTS.healthy_threshold,
    unhealthy_threshold: input.unhealthy_threshold ?? CHECK_DEFAULTS.unhealthy_threshold
  }
  const loc = ['body', 'health_check']
  const issues = []
  try {
    if (check.path.includes('#')) throw new UnsafePathError('Path may not contain a fragment (#)')
    // eslint-disable-next-line no-control-regex -- control characters are what it looks for
    if (/[\x00-\x20\x7f]/.test(check.path)) throw new UnsafePathError('Path may not contain spaces or control characters')
    assertSafePath(check.path)
  } catch (error) {
    if (!(error instanceof UnsafePathError)) throw error
    issues.push({ loc: [...loc, 'path'], msg: error.message, type: 'value_error.path' })
  }
  check.expect_status.forEach((item, i) => {
    if (statusRange(item) === undefined) issues.push({ loc: [...loc, 'expect_status', i], msg: 'a range runs from its low code to its high one, e.g. "200-299"', type: 'value_error.status_range' })
  })
  if (check.timeout_ms > check.interval_s * 1000) {
    issues.push({ loc: [...loc, 'timeout_ms'], msg: `must be at most the interval (${check.interval_s * 1000} ms)`, type: 'value_error.timeout' })
  }
  if (issues.length > 0) throw new RequestValidationError(issues)
  return JSON.stringify(check)
}

const needsBaseUrl = () => new RequestValidationError([{ loc: ['body', 'health_check'], msg: 'a health check needs the provider\'s base_url', type: 'value_error.missing_base_url' }])

/** The check a caller may see: for callers below admin, its query values masked (they may be credentials). */
function visibleHealthCheck (stored: string | null, callerScope: Scope | null): ProviderRecord['health_check'] {
  if (stored === null) return null
  const check = JSON.parse(stored) as NonNullable<ProviderRecord['health_check']>
  return callerScope === 'admin' ? check : { ...check, path: maskRequestTarget(check.path, { everyQueryValue: true }) }
}

/** Credential header names with their values masked. */
function maskedAuthHeaders (stored: string | null): Record<string, '***'> | null {
  return stored === null ? null : Object.fromEntries(Object.keys(JSON.parse(stored) as object).map((name) => [name, '***' as const]))
}

/**
 * The record `callerScope` may see: everything for `admin`; for anyone else the
 * base URL with every query value and any password masked (they may be credentials).
 */
function toRecord (row: repo.ProviderRow, callerScope: Scope | null): ProviderRecord {
  return {
    provider_id: row.id,
    name: row.name,
    category: row.category,
    base_url: row.base_url === null || callerScope === 'admin' ? row.base_url : maskUrl(row.base_url, { everyQueryValue: true }),
    description: row.description,
    rate_limit: row.rate_limit_requests !== null && row.rate_limit_per !== null
      ? { requests: row.rate_limit_requests, per: row.rate_limit_per as QuotaPeriod }
      : null,
    timeout_ms: row.timeout_ms,
    auth_headers: maskedAuthHeaders(row.auth_headers),
    health_check: visibleHealthCheck(row.health_check, callerScope),
    last_check: row.last_check === null ? null : JSON.parse(row.last_check) as ProviderRecord['last_check'],
    created_at: row.created_at,
    updated_at: row.updated_at
  }
}

const notFound = (id: number) => new NotFoundError(`Provider ${id} not found`)
const target = (row: repo.ProviderRow) => `provider:${row.id}`

/** Runs `write`, turning a unique-name violation into the 409 the API promises. */
async function guardUniqueName<T> (name: string | null | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write()
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError(`Provider name '${name ?? ''}' already exists`)
    throw error
  }
}

/** Builds the provider service over the database's work runner, a clock and the change feed. */
export function createProviderService ({ database, now, changes = NO_CHANGES }: { database: WorkRunner, now: () => Date, changes?: ChangeFeed }) {
  return {
    async createProvider (input: CreateProviderInput, actor: Actor, callerScope: Scope | null): Promise<ProviderRecord> {
      if (input.base_url != null) checkBaseUrl(input.base_url)
      const healthCheck = input.health_check == null ? null : storedHealthCheck(input.health_check)
      if (healthCheck !== null && input.base_url == null) throw needsBaseUrl()
      const at = now()
      const row = await guardUniqueName(input.name, () => database.transact((db) => audited(db, actor, { action: 'provider.create', target, changes: input, at },
        repo.insertProvider(db, {
          name: input.name,
          category: input.category ?? null,
          base_url: input.base_url ?? null,
          description: input.description ?? null,
          rate_limit_requests: input.rate_limit?.requests ?? null,
          rate_limit_per: input.rate_limit?.per ?? null,
          timeout_ms: input.timeout_ms ?? null,
          auth_headers: input.auth_headers == null ? null : storedAuthHeaders(input.auth_headers),
          // A new check is due at once.
          health_check: healthCheck,
          check_due_at: healthCheck === null ? null : at.toISOString(),
          created_at: at.toISOString(),
          updated_at: at.toISOString()
        }))))
      return toRecord(row as repo.ProviderRow, callerScope)
    },

    async listProviders (callerScope: Scope | null): Promise<ProviderRecord[]> {
      return (await database.read((db) => repo.listProviders(db))).map((row) => toRecord(row, callerScope))
    },

    async getProvider (id: number, callerScope: Scope | null): Promise<ProviderRecord> {
      const row = await database.read((db) => repo.findProvider(db, id))
      if (row === undefined) throw notFound(id)
      return toRecord(row, callerScope)
    },

    /**
     * Changes the fields that are present and not null, and `health_check` when present
     * (null turns it off); always refreshes updated_at. A changed check starts afresh
     * (due at once, streaks at zero); the same check sent again changes nothing of it.
     */
    async updateProvider (id: number, input: UpdateProviderInput, actor: Actor, callerScope: Scope | null): Promise<ProviderRecord> {
      if (input.base_url != null) checkBaseUrl(input.base_url)
      const healthCheck = input.health_check == null ? input.health_check : storedHealthCheck(input.health_check)
      const at = now()
      const fields: Updateable<ProviderTable> = { updated_at: at.toISOString() }
      if (input.name != null) fields.name = input.name
      if (input.category != null) fields.category = input.category
      if (input.base_url != null) fields.base_url = input.base_url
      if (input.description != null) fields.description = input.description
      if (input.timeout_ms != null) fields.timeout_ms = input.timeout_ms
      // An object replaces every credential header; {} removes them.
      if (input.auth_headers != null) fields.auth_headers = storedAuthHeaders(input.auth_headers)
      if (input.rate_limit != null) {
        fields.rate_limit_requests = input.rate_limit.requests
        fields.rate_limit_per = input.rate_limit.per
      }
      const row = await guardUniqueName(input.name, () => database.transact(function * (db) {
        // Its name shows wherever it is a member, the current provider or in recent history.
        // Pools first: rotations lock their pool before the provider (the same order, no deadlock).
        yield * touchPoolsShowingProvider(db, id)
        if (healthCheck !== undefined) {
          const stored = (yield * repo.findProvider(db, id))?.health_check ?? null
          if (healthCheck !== stored) {
            Object.assign(fields, { health_check: healthCheck, check_due_at: healthCheck === null ? null : at.toISOString(), check_passes: 0, check_failures: 0 })
            if (healthCheck === null) fields.last_check = null
          }
        }
        const updated = yield * audited(db, actor, { action: 'provider.update', target, changes: input, at }, repo.updateProvider(db, id, fields))
        if (updated?.health_check != null && updated.base_url === null) throw needsBaseUrl()
        return updated
      }))
      if (row === undefined) throw notFound(id)
      changes.provider(id)
      return toRecord(row, callerScope)
    },

    /** Lifts the provider's quota (and forgets its counter). */
    async removeRateLimit (id: number, actor: Actor, callerScope: Scope | null): Promise<ProviderRecord> {
      const at = now()
      const row = await database.transact(function * (db) {
        // The quota shows in its members' records only; pools first, as rotations lock them.
        yield * repo.touchPoolsOfProvider(db, id)
        const updated = yield * audited(db, actor, { action: 'provider.rate_limit.remove', target, changes: {}, at },
          repo.updateProvider(db, id, {
            rate_limit_requests: null,
            rate_limit_per: null,
            quota_window_start: null,
            quota_used: 0,
            updated_at: at.toISOString()
          }))
        return updated
      })
      if (row === undefined) throw notFound(id)
      changes.provider(id)
      return toRecord(row, callerScope)
    },

    async deleteProvider (id: number, actor: Actor, callerScope: Scope | null): Promise<ProviderRecord> {
      const row = await database.transact(function * (db) {
        // Before the row goes: deleting it takes its memberships and clears it as current provider.
        yield * touchPoolsShowingProvider(db, id)
        return yield * audited(db, actor, { action: 'provider.delete', target, changes: {}, at: now() }, repo.deleteProvider(db, id))
      })
      if (row === undefined) throw notFound(id)
      changes.provider(id)
      return toRecord(row, callerScope)
    }
  }
}

export type ProviderService = ReturnType<typeof createProviderService>
