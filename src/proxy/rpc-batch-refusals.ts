/**
 * The providers this process saw refuse an upstream batch (issue 36 item 2), and on
 * which path: a 4xx (but 413) or 501 for the list, or one object where a list was due
 * (rpc-batch-answer.ts), when the same calls sent one by one were then taken (a 2xx
 * for one at least: rpc-batch-send.ts), so the list was refused and not the calls or
 * the path (a client's batch to a path the provider does not serve teaches nothing).
 * Such a provider is sent single calls from then on, on that path (the path a client
 * asked, without its query: one client's path cannot turn lists off for another's).
 * What is remembered is the provider as it was when it refused: any change of it
 * through the API or pools as code (its `updated_at`: a new endpoint, a plan that
 * allows batches, an operator sending its `max_batch_size` again) forgets it, and so
 * does a restart (it lives in this process's memory only: each process learns on its
 * own, at the cost of one refused batch per path). The provider's record shows it
 * (`batches: "refused"`, on any path: providers/provider.service.ts).
 */

/** What is remembered of a provider that refused: the fields whose change forgets it. */
export interface BatchingProvider {
  readonly provider_id: number
  readonly provider_updated_at: string
  readonly base_url: string | null
  readonly max_batch_size: number
}

/** Refusals remembered at most, paths of all providers together (past it, the memory starts over: each refuses once more). */
const MAX_REMEMBERED = 10_000

/** Longest path remembered (a longer one's refusal is neither remembered nor logged: each batch on it is refused again). */
const MAX_PATH_CHARS = 1024

const keyOf = (provider: Omit<BatchingProvider, 'provider_id'>): string => `${provider.provider_updated_at}\n${provider.max_batch_size}\n${provider.base_url ?? ''}`

/** A proxied path without its query (what a refusal is remembered and logged for: a query may carry a client's key). */
export const pathOf = (path: string): string => {
  const query = path.indexOf('?')
  return query === -1 ? path : path.slice(0, query)
}

export class BatchRefusals {
  /** provider id → the provider as it was when it refused (keyOf), and the paths it refused lists on. */
  private readonly refused = new Map<number, { readonly as: string, readonly paths: Set<string> }>()
  private remembered = 0

  /** True when the provider, as it is now, refused a batch on `path` in this process. */
  refuses (provider: BatchingProvider, path: string): boolean {
    if (this.remembered === 0) return false
    const known = this.refused.get(provider.provider_id)
    return known !== undefined && known.as === keyOf(provider) && known.paths.has(pathOf(path))
  }

  /** Remembers that the provider refused a batch on `path`; true when it is news (to be logged once). */
  learn (provider: BatchingProvider, path: string): boolean {
    if (this.refuses(provider, path)) return false
    const at = pathOf(path)
    if (at.length > MAX_PATH_CHARS) return false
    if (this.remembered >= MAX_REMEMBERED) {
      this.refused.clear()
      this.remembered = 0
    }
    let known = this.refused.get(provider.provider_id)
    if (known?.as !== keyOf(provider)) {
      this.remembered -= known?.paths.size ?? 0
      this.refused.set(provider.provider_id, known = { as: keyOf(provider), paths: new Set() })
    }
    known.paths.add(at)
    this.remembered++
    return true
  }

  /** The provider record's view of its row: it refused batches on some path. */
  readonly shown = (provider: { readonly id: number, readonly updated_at: string, readonly base_url: string | null, readonly max_batch_size: number }): boolean => {
    const known = this.refused.get(provider.id)
    return known !== undefined && known.as === keyOf({ provider_updated_at: provider.updated_at, base_url: provider.base_url, max_batch_size: provider.max_batch_size })
  }
}
