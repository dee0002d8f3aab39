/**
 * The providers this process saw refuse an upstream batch (issue 36 item 2): a 4xx or
 * 501 for the list, or one object where a list was due (rpc-batch-answer.ts). Such a
 * provider is sent single calls from then on. What is remembered is the provider as
 * it was when it refused: any change of it through the API or pools as code (its
 * `updated_at`: a new endpoint, a plan that allows batches, an operator sending its
 * `max_batch_size` again) forgets it, and so does a restart (it lives in this
 * process's memory only: each process learns on its own, at the cost of one refused
 * batch). The provider's record shows it (`batches: "refused"`, providers/provider.service.ts).
 */

/** What is remembered of a provider that refused: the fields whose change forgets it. */
export interface BatchingProvider {
  readonly provider_id: number
  readonly provider_updated_at: string
  readonly base_url: string | null
  readonly max_batch_size: number
}

/** Providers remembered at most (past it, the memory starts over: each provider then refuses once more). */
const MAX_REMEMBERED = 10_000

const keyOf = (provider: Omit<BatchingProvider, 'provider_id'>): string => `${provider.provider_updated_at}\n${provider.max_batch_size}\n${provider.base_url ?? ''}`

export class BatchRefusals {
  /** provider id → the provider as it was when it refused (keyOf). */
  private readonly refused = new Map<number, string>()

  /** True when the provider, as it is now, refused a batch in this process. */
  refuses (provider: BatchingProvider): boolean {
    if (this.refused.size === 0) return false
    const known = this.refused.get(provider.provider_id)
    return known !== undefined && known === keyOf(provider)
  }

  /** Remembers that the provider refused a batch; true when it is news (to be logged once). */
  learn (provider: BatchingProvider): boolean {
    if (this.refuses(provider)) return false
    if (this.refused.size >= MAX_REMEMBERED) this.refused.clear()
    this.refused.set(provider.provider_id, keyOf(provider))
    return true
  }

  /** The provider record's view of its row. */
  readonly shown = (provider: { readonly id: number, readonly updated_at: string, readonly base_url: string | null, readonly max_batch_size: number }): boolean =>
    this.refuses({ provider_id: provider.id, provider_updated_at: provider.updated_at, base_url: provider.base_url, max_batch_size: provider.max_batch_size })
}
