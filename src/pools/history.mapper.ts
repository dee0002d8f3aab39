/**
 * Turns history rows into the API's rotation history records, resolving the
 * provider names they mention (null for a provider that no longer exists).
 */
import type { Work } from '../db/work.js'
import type { Db } from '../db/types.js'
import { findProviderNames } from '../providers/provider.repository.js'
import type { HistoryRow } from './history.repository.js'
import type { HistoryRecordValue } from './pool.schemas.js'

/**
 * History records for `rows`. `known` holds names the caller already has (a pool's
 * members); only the providers missing from it are looked up, in one query.
 */
export function * toHistoryRecords (
  db: Db, rows: readonly HistoryRow[], known: ReadonlyMap<number, string | null> = new Map()
): Work<HistoryRecordValue[]> {
  const missing = new Set<number>()
  for (const row of rows) {
    for (const id of [row.from_provider_id, row.to_provider_id]) {
      if (id !== null && !known.has(id)) missing.add(id)
    }
  }
  const found = yield * findProviderNames(db, [...missing])
  const nameOf = (id: number | null): string | null => id === null ? null : known.get(id) ?? found.get(id) ?? null
  return rows.map((row) => ({
    id: row.id,
    timestamp: row.timestamp,
    from_provider: nameOf(row.from_provider_id),
    to_provider: nameOf(row.to_provider_id),
    reason: row.reason,
    success: Boolean(row.success),
    notes: row.notes
  }))
}
