/**
 * Hooks that need a route's URL are attached to each route as it is added (its URL a
 * constant there): reading `request.routeOptions` would build an object per request.
 */
import type { RouteOptions } from 'fastify'

/** Adds `hook` to the route's own hooks of that name, after those it has. */
export function addRouteHook (route: RouteOptions, name: 'onResponse' | 'preHandler', hook: unknown): void {
  const existing = route[name] === undefined ? [] : ([] as unknown[]).concat(route[name])
  ;(route as unknown as Record<string, unknown>)[name] = [...existing, hook]
}
