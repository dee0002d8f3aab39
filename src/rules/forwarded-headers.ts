/**
 * Which headers belong to whom on a proxied request and its answer. A client may not
 * tell the provider another host, scheme, port, path or method than the one it asks
 * for (the forwarded-host family that cache poisoning uses): those request headers
 * are never forwarded (proxy/forward.ts), so they are never part of a cache key
 * either (cache-policy.ts). And two families of answer headers are the service's
 * alone, whatever a provider sends: `x-sourcepool-*` and `Access-Control-*` (the
 * browser must see the service's CORS policy, never one a provider wrote).
 */

/**
 * Request headers that rewrite, for servers and frameworks that honour them, which
 * host, scheme, port, prefix, URL or method a request was for. A provider that builds
 * links, redirects or routes from them would build, for one client's value, an answer
 * the cache then serves to everyone under a key that does not name that value.
 * `X-Forwarded-Proto` is set again by the proxy itself; `X-Forwarded-For` is kept (the
 * list received plus the peer, as reverse proxies do): it names the client, not the
 * resource.
 */
export const CLIENT_FORWARDING_HEADERS: ReadonlySet<string> = new Set([
  'forwarded', 'x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-port', 'x-forwarded-scheme', 'x-forwarded-server',
  'x-forwarded-prefix', 'x-forwarded-path', 'x-forwarded-uri', 'x-forwarded-ssl', 'front-end-https', 'x-url-scheme',
  'x-host', 'x-original-host', 'x-original-url', 'x-original-uri', 'x-rewrite-url',
  'x-http-method-override', 'x-http-method', 'x-method-override'
])

/** The service's own header namespace: never sent upstream by a client, never passed back from a provider. */
export const SERVICE_HEADER_PREFIX = 'x-sourcepool-'

/** The CORS answer headers: only the service's own (http/cors.ts) reach a browser. */
export const CORS_HEADER_PREFIX = 'access-control-'

/** True for an answer header (lower-case name) only the service may set: `x-sourcepool-*` and `Access-Control-*`. */
export function serviceOwnsAnswerHeader (name: string): boolean {
  return name.startsWith(SERVICE_HEADER_PREFIX) || name.startsWith(CORS_HEADER_PREFIX)
}
