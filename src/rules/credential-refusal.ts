/**
 * What a provider refusing a request means, as one pure rule for the proxy
 * (runtime/credential-evidence.ts) and outcome reports (rotation/outcome.service.ts)
 * alike (issue 34). A 403 refuses the resource asked for (its first path segment).
 * A 401 or 402 on our credentials may mean our key is revoked, or only that this
 * path is not in its plan (a paid-only path). The client chooses the paths, so
 * nothing it can steer counts as evidence: a 401/402 refuses its exact path alone
 * (refusedPathOf), unless the same credential is refused where it cannot be the path:
 *
 * - this very target (path and query) answered 2xx with this credential before;
 * - it is exactly the provider's health check target (the path the service's own
 *   check asks for, query included: a client's query may carry a key of its own).
 *
 * Then it is `credentials_rejected`: the member is out for max_cooldown_seconds.
 * Refusals of other paths are no such evidence: a client asking for three paid-only
 * paths would otherwise take every member out.
 */

/** The first resource segment of a path, e.g. `/despesas` for `/despesas/2024?x=1`: what a refusal is remembered by. */
export function resourceOf (path: string): string {
  return `/${path.split(/[/?#]/)[1] ?? ''}`
}

/** What a 401/402 refusal is remembered by: the exact path, without its query or fragment (`/v1/paid` for `/v1/paid?x=1`). */
export function refusedPathOf (path: string): string {
  return withoutQuery(path)
}

/** True for the statuses that refuse our credentials (when they are ours: the pool does not forward the client's). */
export const refusesCredentials = (status: number | null | undefined): boolean => status === 401 || status === 402

/**
 * What a 401/402 on our credentials is taken for: our key rejected (the member is
 * out), a refusal of its path alone (not a health failure, as a 403), or — a
 * report without its path — a plain failure of the member.
 */
export type CredentialVerdict = 'credentials_rejected' | 'resource_refused' | 'unscoped'

/** What is known when a 401/402 comes back. */
export interface RefusalEvidence {
  /** The path (and query) the answer was for, relative to the provider's base URL; null when unknown (a report without one). */
  readonly path: string | null
  /** Whether this very path and query answered 2xx with this credential before. */
  readonly succeededBefore: boolean
  /** The path of the provider's health check (stored JSON's `path`), if it has one. */
  readonly healthCheckPath: string | null
}

/**
 * The verdict on a 401/402 on our credentials (see the file's header). With no
 * path known (a report without one) and no 2xx remembered, nothing shows it is our
 * key, nor which path it refuses: `unscoped`.
 */
export function judgeRefusal (evidence: RefusalEvidence): CredentialVerdict {
  const { path, healthCheckPath } = evidence
  if (evidence.succeededBefore) return 'credentials_rejected'
  if (path === null) return 'unscoped'
  if (healthCheckPath !== null && withSlash(path) === withSlash(healthCheckPath)) return 'credentials_rejected'
  return 'resource_refused'
}

/** A target with its leading slash. */
function withSlash (target: string): string {
  return target.startsWith('/') ? target : `/${target}`
}

/** A path without its query or fragment, with its leading slash. */
function withoutQuery (path: string): string {
  return withSlash(path.split(/[?#]/)[0] ?? '')
}

/**
 * How long a refusal learned from an answer with `status` lasts: a 403 the pool's
 * forbidden_ttl_seconds; a 401/402 no longer than a rejected key would have been out
 * (max_cooldown_seconds), since a client's own request (its key in the query, say)
 * may have caused it.
 */
export function refusalSeconds (status: number, pool: { readonly forbidden_ttl_seconds: number, readonly max_cooldown_seconds: number }): number {
  return refusesCredentials(status) ? Math.min(pool.forbidden_ttl_seconds, pool.max_cooldown_seconds) : pool.forbidden_ttl_seconds
}

/** The path of a provider's stored health check (JSON), or null without one (or an unreadable one). */
export function healthCheckPathOf (stored: string | null): string | null {
  if (stored === null) return null
  try {
    const path = (JSON.parse(stored) as { path?: unknown }).path
    return typeof path === 'string' ? path : null
  } catch {
    return null
  }
}
