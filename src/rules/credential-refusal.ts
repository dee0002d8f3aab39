/**
 * What a provider refusing a request means, as one pure rule for the proxy
 * (runtime/credential-evidence.ts) and outcome reports (rotation/outcome.service.ts)
 * alike (issue 34). A 403 refuses the resource asked for. A 401 or 402 on our
 * credentials may mean our key is revoked, or only that this resource is not in its
 * plan (a paid-only path): read as a revoked key on sight, one client asking for a
 * paid-only path took every member of a pool out. So a 401/402 is a refusal of its
 * resource alone, unless something shows that it holds across resources:
 *
 * - the same credential is refused (401/402) on another resource, still in force;
 * - this very target (path and query) answered 2xx with this credential before;
 * - it is the provider's health check path (the service's own request, no client's).
 *
 * Then it is `credentials_rejected`: the member is out for max_cooldown_seconds.
 */

/** The first resource segment of a path, e.g. `/despesas` for `/despesas/2024?x=1`: what a refusal is remembered by. */
export function resourceOf (path: string): string {
  return `/${path.split(/[/?#]/)[1] ?? ''}`
}

/** True for the statuses that refuse our credentials (when they are ours: the pool does not forward the client's). */
export const refusesCredentials = (status: number | null | undefined): boolean => status === 401 || status === 402

/**
 * What a 401/402 on our credentials is taken for: our key rejected (the member is
 * out), a refusal of its resource alone (not a health failure, as a 403), or — a
 * report without its path, and no other evidence — a plain failure of the member.
 */
export type CredentialVerdict = 'credentials_rejected' | 'resource_refused' | 'unscoped'

/** What is known when a 401/402 comes back. */
export interface RefusalEvidence {
  /** The path (and query) the answer was for, relative to the provider's base URL; null when unknown (a report without one). */
  readonly path: string | null
  /** The resources this credential was refused on (401/402), refusals still in force. */
  readonly refusedResources: Iterable<string>
  /** Whether this very path and query answered 2xx with this credential before. */
  readonly succeededBefore: boolean
  /** The path of the provider's health check (stored JSON's `path`), if it has one. */
  readonly healthCheckPath: string | null
}

/**
 * The verdict on a 401/402 on our credentials (see the file's header). With no
 * path known, nothing scopes the refusal to a resource: any credential refusal in
 * force then counts as another resource, and without one it is `unscoped`.
 */
export function judgeRefusal (evidence: RefusalEvidence): CredentialVerdict {
  const { path } = evidence
  if (evidence.succeededBefore) return 'credentials_rejected'
  if (path !== null && evidence.healthCheckPath !== null && withoutQuery(path) === withoutQuery(evidence.healthCheckPath)) return 'credentials_rejected'
  const resource = path === null ? null : resourceOf(path)
  for (const refused of evidence.refusedResources) if (refused !== resource) return 'credentials_rejected'
  return resource === null ? 'unscoped' : 'resource_refused'
}

/** A path without its query or fragment, with its leading slash. */
function withoutQuery (path: string): string {
  const bare = path.split(/[?#]/)[0] ?? ''
  return bare.startsWith('/') ? bare : `/${bare}`
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
