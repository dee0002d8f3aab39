/**
 * What a provider's fields must be and how they are stored, whoever sends them
 * (the API, or a declared state file): base and WebSocket URLs without credentials in them,
 * credential headers under names the proxy does not manage itself, health checks
 * with their defaults filled in, and the fields a changed check resets. Errors
 * are 422s (pydantic's URL words for a URL, `value_error` for this service's own
 * rules) whose `loc` the caller chooses (`body…` for the API, the file's path
 * for a file).
 */
import type { Insertable, Updateable } from 'kysely'
import type { ProviderTable } from '../db/types.js'
import { RequestValidationError, valueError, type ValidationIssue } from '../errors.js'
import { urlIssue, type UrlSchemes } from '../http/url-words.js'
import { DEFAULT_BATCH_SIZE } from '../rules/jsonrpc-batch.js'
import { CHECK_DEFAULTS, statusRange, type HealthCheck } from '../rules/health-check.js'
import type { QuotaPeriod } from '../rules/quota.js'
import { assertSafePath, UnsafePathError } from '../rules/upstream-url.js'
import { RESERVED_HEADERS, type CreateProviderInput, type HealthCheckInputValue, type MethodsValue, type RateLimitValue } from './provider.schemas.js'

/**
 * The stored form of credential headers (names lower-cased), or null for none; 422 for
 * a reserved name, or two names that differ only in case (one would silently win).
 */
export function storedAuthHeaders (headers: Record<string, string>, loc: ReadonlyArray<string | number> = ['body', 'auth_headers']): string | null {
  const entries = Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value, name] as const)
  const seen = new Set<string>()
  const issues: ValidationIssue[] = []
  // The name is what is wrong: reported as a key is, at `[key]` under it, with the name as input (never the value).
  for (const [name, , sent] of entries) {
    if (RESERVED_HEADERS.includes(name)) {
      issues.push(valueError([...loc, sent, '[key]'], sent, `the proxy manages ${name} itself; it cannot be a credential header`))
    } else if (seen.has(name)) {
      issues.push(valueError([...loc, sent, '[key]'], sent, `header names are case-insensitive: ${name} is given twice`))
    }
    seen.add(name)
  }
  if (issues.length > 0) throw new RequestValidationError(issues)
  return entries.length === 0 ? null : JSON.stringify(Object.fromEntries(entries.map(([name, value]) => [name, value])))
}

/**
 * 422 for a base URL that is not a URL, or that carries userinfo: credentials go in
 * `auth_headers`, where they are never shown.
 */
export function checkBaseUrl (baseUrl: string, loc: ReadonlyArray<string | number> = ['body', 'base_url']): void {
  checkUrl(baseUrl, loc, 'base_url', ['http', 'https'])
}

/** 422 for a WebSocket URL (`ws_url`) that is not a ws:// or wss:// URL, or that carries userinfo, as checkBaseUrl. */
export function checkWsUrl (wsUrl: string, loc: ReadonlyArray<string | number> = ['body', 'ws_url']): void {
  checkUrl(wsUrl, loc, 'ws_url', ['ws', 'wss'])
}

/** 422 (at `loc`, naming `field`) for a URL that does not parse (in the words for `schemes`: the schema's pattern holds the scheme), or that carries userinfo. */
function checkUrl (text: string, loc: ReadonlyArray<string | number>, field: string, schemes: UrlSchemes): void {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new RequestValidationError([urlIssue(loc, text, schemes)])
  }
  if (url.username !== '' || url.password !== '') {
    // The input echoed is masked when answered (http/answered-issues.ts): the password never comes back.
    throw new RequestValidationError([valueError(loc, text,
      `${field} may not carry credentials (user:password@); put them in auth_headers, e.g. {"authorization": "Basic <base64 of user:password>"}`)])
  }
}

/**
 * The stored form of a health check, defaults filled in; 422 for a path that could
 * not be sent under the base URL, a range that is empty, or a timeout longer than
 * the interval (a check would still run when the next one is due).
 */
export function storedHealthCheck (input: HealthCheckInputValue, loc: ReadonlyArray<string | number>): string {
  const check: HealthCheck = {
    path: input.path,
    interval_s: input.interval_s ?? CHECK_DEFAULTS.interval_s,
    timeout_ms: input.timeout_ms ?? CHECK_DEFAULTS.timeout_ms,
    expect_status: input.expect_status ?? CHECK_DEFAULTS.expect_status,
    healthy_threshold: input.healthy_threshold ?? CHECK_DEFAULTS.healthy_threshold,
    unhealthy_threshold: input.unhealthy_threshold ?? CHECK_DEFAULTS.unhealthy_threshold
  }
  const issues: ValidationIssue[] = []
  try {
    if (check.path.includes('#')) throw new UnsafePathError('Path may not contain a fragment (#)')
    // eslint-disable-next-line no-control-regex -- control characters are what it looks for
    if (/[\x00-\x20\x7f]/.test(check.path)) throw new UnsafePathError('Path may not contain spaces or control characters')
    assertSafePath(check.path)
  } catch (error) {
    if (!(error instanceof UnsafePathError)) throw error
    issues.push(valueError([...loc, 'path'], input.path, error.message))
  }
  check.expect_status.forEach((item, i) => {
    if (statusRange(item) === undefined) issues.push(valueError([...loc, 'expect_status', i], item, 'a range runs from its low code to its high one, e.g. "200-299"'))
  })
  if (check.timeout_ms > check.interval_s * 1000) {
    issues.push(valueError([...loc, 'timeout_ms'], check.timeout_ms, `timeout_ms must be at most the interval (${check.interval_s * 1000} ms)`))
  }
  if (issues.length > 0) throw new RequestValidationError(issues)
  return JSON.stringify(check)
}

/**
 * The stored form of method rules (their shape is the schema's: rules/rpc-methods.ts
 * bounds): JSON of the lists sent, allow first; null when neither is sent (`{}`:
 * every method, as null).
 */
export function storedMethods (methods: MethodsValue): string | null {
  if (methods.allow === undefined && methods.deny === undefined) return null
  return JSON.stringify({ ...(methods.allow === undefined ? {} : { allow: methods.allow }), ...(methods.deny === undefined ? {} : { deny: methods.deny }) })
}

/** A quota as stored: its limit, unit and period. */
export type StoredRateLimit = Pick<Insertable<ProviderTable>, 'rate_limit_requests' | 'rate_limit_unit' | 'rate_limit_per'>

/**
 * The stored form of a `rate_limit` (null: none): its limit, what it counts and its
 * period; 422 unless it says exactly one of `requests` and `credits`.
 */
export function storedRateLimit (input: RateLimitValue | null | undefined, loc: ReadonlyArray<string | number> = ['body', 'rate_limit']): StoredRateLimit {
  if (input == null) return { rate_limit_requests: null, rate_limit_unit: 'requests', rate_limit_per: null }
  const { requests, credits } = input
  if (requests !== undefined && credits !== undefined) {
    throw new RequestValidationError([valueError(loc, input, 'a rate limit counts requests or credits, not both: send one of them')])
  }
  const limit = requests ?? credits
  if (limit === undefined) throw new RequestValidationError([valueError(loc, input, 'a rate limit needs requests or credits (how many per window)')])
  return { rate_limit_requests: limit, rate_limit_unit: credits === undefined ? 'requests' : 'credits', rate_limit_per: input.per }
}

/** A stored quota as the API shows it: `{requests|credits, per}`, or null. */
export function shownRateLimit (row: { readonly rate_limit_requests: number | null, readonly rate_limit_unit?: string, readonly rate_limit_per: string | null }):
  { requests: number, per: QuotaPeriod } | { credits: number, per: QuotaPeriod } | null {
  if (row.rate_limit_requests === null || row.rate_limit_per === null) return null
  const per = row.rate_limit_per as QuotaPeriod
  return row.rate_limit_unit === 'credits' ? { credits: row.rate_limit_requests, per } : { requests: row.rate_limit_requests, per }
}

/** The stored form of method costs (their bounds are the schema's): JSON as sent, or null for none (`{}`). */
export function storedMethodCosts (costs: Record<string, number>): string | null {
  return Object.keys(costs).length === 0 ? null : JSON.stringify(costs)
}

/** 422 for a health check (`check`, as sent) on a provider without a base URL. */
export const needsBaseUrl = (check: unknown, loc: ReadonlyArray<string | number> = ['body', 'health_check']) => new RequestValidationError([valueError(loc, check, 'a health check needs the provider\'s base_url')])

/** A provider's fields as stored (all but its name and timestamps), checked. */
export type StoredProvider = Pick<Insertable<ProviderTable>, 'category' | 'base_url' | 'ws_url' | 'description' | 'rate_limit_requests' | 'rate_limit_per' | 'timeout_ms' |
'auth_headers' | 'health_check' | 'methods' | 'max_logs_range' | 'max_batch_size' | 'method_costs'> & StoredRateLimit & { name: string }

/** The stored form of a provider as sent on create (absent fields: null); `loc` prefixes every error. */
export function storedProvider (input: CreateProviderInput, loc: ReadonlyArray<string | number> = ['body']): StoredProvider {
  if (input.base_url != null) checkBaseUrl(input.base_url, [...loc, 'base_url'])
  if (input.ws_url != null) checkWsUrl(input.ws_url, [...loc, 'ws_url'])
  const healthCheck = input.health_check == null ? null : storedHealthCheck(input.health_check, [...loc, 'health_check'])
  if (healthCheck !== null && input.base_url == null) throw needsBaseUrl(input.health_check, [...loc, 'health_check'])
  return {
    name: input.name,
    category: input.category ?? null,
    base_url: input.base_url ?? null,
    ws_url: input.ws_url ?? null,
    description: input.description ?? null,
    ...storedRateLimit(input.rate_limit, [...loc, 'rate_limit']),
    timeout_ms: input.timeout_ms ?? null,
    auth_headers: input.auth_headers == null ? null : storedAuthHeaders(input.auth_headers, [...loc, 'auth_headers']),
    health_check: healthCheck,
    methods: input.methods == null ? null : storedMethods(input.methods),
    max_logs_range: input.max_logs_range ?? null,
    max_batch_size: input.max_batch_size ?? DEFAULT_BATCH_SIZE,
    method_costs: input.method_costs == null ? null : storedMethodCosts(input.method_costs)
  }
}

/** The row of a new provider created at `at` (a check is due at once). */
export function newProviderRow (fields: StoredProvider, at: Date): Insertable<ProviderTable> {
  return {
    ...fields,
    check_due_at: fields.health_check == null ? null : at.toISOString(),
    created_at: at.toISOString(),
    updated_at: at.toISOString()
  }
}

/**
 * The fields to write when the stored check `stored` becomes `next` at `at`: nothing
 * when it is the same (its schedule and streaks go on); a changed check is due at once
 * with both streaks at zero; no check clears the last result too.
 */
export function healthCheckChange (stored: string | null, next: string | null, at: Date): Updateable<ProviderTable> {
  if (next === stored) return {}
  const fields: Updateable<ProviderTable> = { health_check: next, check_due_at: next === null ? null : at.toISOString(), check_passes: 0, check_failures: 0 }
  if (next === null) fields.last_check = null
  return fields
}
