/**
 * Turns history rows into the API's rotation history records.
 */
import type { HistoryRow } from './history.repository.js'
import type { HistoryRecordValue } from './rotation.schemas.js'

/** A stored history row as operation 11 returns it. */
export function toHistoryRecord (row: HistoryRow): HistoryRecordValue {
  return {
    id: row.id,
    timestamp: row.timestamp,
    from_provider: row.from_provider,
    to_provider: row.to_provider,
    reason: row.reason,
    success: Boolean(row.success),
    notes: row.notes
  }
}
