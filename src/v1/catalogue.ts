/**
 * The one catalogue of the `/api/v1` family (and `/graphql`): every route the
 * service defines, with its purpose and registration status. The app mounts
 * exactly the `registered` and `partial` entries (v1.routes.ts), so what answers,
 * what `/openapi.json` lists and what `GET /api/v1/status/endpoints` reports
 * cannot drift apart.
 */

export type RouteStatus = 'registered' | 'partial' | 'unregistered'
export type CatalogueMethod = 'GET' | 'POST' | 'DELETE' | 'WS'

export interface CatalogueEntry {
  readonly method: CatalogueMethod
  /** Fastify path syntax (`:param`). */
  readonly path: string
  readonly purpose: string
  readonly status: RouteStatus
}

export const ROUTE_STATUSES: readonly RouteStatus[] = ['registered', 'partial', 'unregistered']

/** The agents that exist as stubs; the original's target was 17. */
export const STUB_AGENTS = ['dandara', 'lampiao', 'niemeyer'] as const

export const CATALOGUE: readonly CatalogueEntry[] = [
  { method: 'GET', path: '/api/v1/status/endpoints', purpose: 'registration status of this route family', status: 'registered' },

  { method: 'POST', path: '/api/v1/investigations/start', purpose: 'start an investigation (the service behind it is unavailable)', status: 'partial' },
  { method: 'WS', path: '/api/v1/ws/chat', purpose: 'chat over WebSocket (messages are not processed)', status: 'partial' },
  { method: 'POST', path: '/graphql', purpose: 'GraphQL endpoint (no schema is defined)', status: 'partial' },
  { method: 'POST', path: '/api/v1/agents/:agent_name', purpose: `agent stubs without logic: ${STUB_AGENTS.join(', ')}`, status: 'partial' },

  { method: 'POST', path: '/api/v1/webhooks/incoming/github', purpose: 'incoming webhook from a code host', status: 'unregistered' },
  { method: 'POST', path: '/api/v1/webhooks/incoming/slack', purpose: 'incoming webhook from a chat system', status: 'unregistered' },
  { method: 'POST', path: '/api/v1/webhooks/register', purpose: 'register a webhook', status: 'unregistered' },
  { method: 'GET', path: '/api/v1/webhooks/', purpose: 'list webhooks', status: 'unregistered' },
  { method: 'DELETE', path: '/api/v1/webhooks/:webhook_id', purpose: 'delete a webhook', status: 'unregistered' },
  { method: 'GET', path: '/api/v1/monitoring/slo', purpose: 'service-level objective report', status: 'unregistered' },
  { method: 'GET', path: '/api/v1/monitoring/sla', purpose: 'service-level agreement report', status: 'unregistered' },
  { method: 'POST', path: '/api/v1/monitoring/alerts', purpose: 'create an alert', status: 'unregistered' },
  { method: 'POST', path: '/api/v1/chaos/latency', purpose: 'fault injection: latency', status: 'unregistered' },
  { method: 'POST', path: '/api/v1/chaos/failure', purpose: 'fault injection: failure', status: 'unregistered' },
  { method: 'POST', path: '/api/v1/chaos/cpu-spike', purpose: 'fault injection: CPU spike', status: 'unregistered' },
  { method: 'GET', path: '/api/v1/debug/routes', purpose: 'list routes', status: 'unregistered' },
  { method: 'GET', path: '/api/v1/debug/config', purpose: 'show configuration', status: 'unregistered' },
  { method: 'GET', path: '/api/v1/debug/memory', purpose: 'show memory use', status: 'unregistered' },
  { method: 'POST', path: '/api/v1/auth/db/register', purpose: 'register a user in a database-backed login system', status: 'unregistered' },
  { method: 'POST', path: '/api/v1/auth/db/login', purpose: 'log in against that system', status: 'unregistered' }
]

/** The HTTP method the router knows an entry by (a WebSocket route is a GET upgrade). */
export function routerMethod (entry: CatalogueEntry): 'GET' | 'POST' | 'DELETE' {
  return entry.method === 'WS' ? 'GET' : entry.method
}

/** The key the route handlers are registered under. */
export function entryKey (entry: Pick<CatalogueEntry, 'method' | 'path'>): string {
  return `${entry.method} ${entry.path}`
}

/** Whether the catalogue says the entry must be mounted. */
export function isMounted (entry: CatalogueEntry): boolean {
  return entry.status !== 'unregistered'
}
