/**
 * The typed client of the service (the package's `sourcepool/client` export):
 * openapi-fetch over the types generated from the service's own OpenAPI document
 * (schema.d.ts), so every path, parameter, body and answer is checked by the
 * compiler. The CLI talks to the service through it.
 *
 *   const api = createSourcepoolClient({ baseUrl: 'http://127.0.0.1:8000', token })
 *   const { data, error } = await api.POST('/api/pools/{pool_id}/rotate', { params: { path: { pool_id: 1 } } })
 */
import createClient, { type Client } from 'openapi-fetch'
import type { paths } from './schema.js'

export type { components, operations, paths } from './schema.js'

export type SourcepoolClient = Client<paths>

export interface ClientOptions {
  /** Where the service listens, e.g. `http://127.0.0.1:8000`. */
  readonly baseUrl: string
  /** A token's secret (AUTH_TOKENS), sent as `Authorization: Bearer …`. */
  readonly token?: string
  /** Another fetch (tests, proxies). */
  readonly fetch?: typeof globalThis.fetch
}

/** A client of the service at `baseUrl`. */
export function createSourcepoolClient ({ baseUrl, token, fetch }: ClientOptions): SourcepoolClient {
  return createClient<paths>({
    baseUrl: baseUrl.replace(/\/+$/, ''),
    headers: token === undefined || token === '' ? {} : { authorization: `Bearer ${token}` },
    ...(fetch === undefined ? {} : { fetch })
  })
}
