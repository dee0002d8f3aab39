/**
 * Each `evm` member's head and lag as this process knows them (issue 36 item 6),
 * for the status record and `/next`'s explanation. The heads are tracked by the
 * data plane (proxy/rpc-heads.ts), above this floor, so they come in as a plain
 * function that services.ts hands down; without one every head reads unknown.
 *
 * Heads move without the pool's change_seq moving, so an evm pool's record kept by
 * the read model is exact for HEADS_VALID_MS only (docs/decisions.md).
 */
import { isLaggingBy } from '../rules/evm-finality.js'

/** How long an evm pool's status record is served as built (its heads as they were then). */
export const HEADS_VALID_MS = 1000

/** A member's node head: a decimal string, and blocks behind the pool's highest head; null while unknown. */
export interface KnownHead { readonly provider_id: number, readonly head: string | null, readonly lag: number | null }

/** The heads of a pool's members this process tracks; none for a pool it does not watch (not used lately, not evm). */
export type MemberHeads = (poolId: number) => readonly KnownHead[]

/** Every head unknown (no tracker: a service built without the data plane). */
export const NO_HEADS: MemberHeads = () => []

/** What the status record and the explanation show of a member's head. */
export interface HeadFields {
  head_block: string | null
  block_lag: number | null
  lagging: boolean
}

/** The fields of each provider of `known`, lagging meaning more than `maxLag` blocks behind; a provider not in it reads unknown. */
export function headFieldsOf (known: readonly KnownHead[], maxLag: number): (providerId: number) => HeadFields {
  const byProvider = new Map(known.map((one) => [one.provider_id, one]))
  return (providerId) => {
    const one = byProvider.get(providerId)
    const lag = one?.lag ?? null
    return { head_block: one?.head ?? null, block_lag: lag, lagging: lag !== null && isLaggingBy(lag, maxLag) }
  }
}
