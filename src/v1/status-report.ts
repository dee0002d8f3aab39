/**
 * `GET /api/v1/status/endpoints`: counts and shares by status, computed from the
 * catalogue, with each route checked against the live router.
 */
import { Type, type Static } from 'typebox'
import { ROUTE_STATUSES, isMounted, routerMethod, type CatalogueEntry, type RouteStatus } from './catalogue.js'

const StatusCount = Type.Object({ count: Type.Integer(), share: Type.Number() })

export const StatusReport = Type.Object({
  total: Type.Integer(),
  by_status: Type.Object({ registered: StatusCount, partial: StatusCount, unregistered: StatusCount }),
  routes: Type.Array(Type.Object({
    method: Type.String(),
    path: Type.String(),
    status: Type.String(),
    purpose: Type.String(),
    mounted: Type.Boolean({ description: 'what the live router answers for this route' })
  })),
  consistent: Type.Boolean({ description: 'every registered and partial route is mounted, no unregistered one is' })
})
export type StatusReportValue = Static<typeof StatusReport>

/** Builds the report; `hasRoute` asks the live router whether a route is mounted. */
export function buildStatusReport (
  catalogue: readonly CatalogueEntry[],
  hasRoute: (method: 'GET' | 'POST' | 'DELETE', url: string) => boolean
): StatusReportValue {
  const total = catalogue.length
  const count = (status: RouteStatus) => catalogue.filter((e) => e.status === status).length
  const byStatus = Object.fromEntries(ROUTE_STATUSES.map((status) => {
    const n = count(status)
    return [status, { count: n, share: total === 0 ? 0 : Math.round((n / total) * 1000) / 1000 }]
  })) as StatusReportValue['by_status']
  const routes = catalogue.map((entry) => ({
    method: entry.method,
    path: entry.path.replace(/:(\w+)/g, '{$1}'),
    status: entry.status,
    purpose: entry.purpose,
    mounted: hasRoute(routerMethod(entry), entry.path)
  }))
  return {
    total,
    by_status: byStatus,
    routes,
    consistent: catalogue.every((entry, i) => routes[i]?.mounted === isMounted(entry))
  }
}
