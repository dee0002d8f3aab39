/**
 * The history counted per minute for the activity charts: rotations and failovers,
 * by the rule of rules/history-kind.ts written as SQL (its constants shared, its
 * agreement with the rule tested on both databases). Each query reads only the
 * window's records, through an index on the time (per pool: the pool's index of 001;
 * every pool: the time index of 010), grouped in the database.
 */
import { sql, type RawBuilder } from 'kysely'
import type { Db } from '../db/types.js'
import { all, type Work } from '../db/work.js'
import { FAILOVER_NOTES, PROVIDER_NOTES, RECOVERED } from '../rules/history-kind.js'

/** The minute a record's timestamp falls in: `YYYY-MM-DDTHH:MM` (the timestamps are ISO text in both databases). */
const minuteKey = sql<string>`substr(${sql.ref('timestamp')}, 1, 16)`

/** True when the record's notes open with `prefix`: notes only the service writes. */
function notesOpen (prefix: string): RawBuilder<boolean> {
  return sql<boolean>`substr(coalesce(${sql.ref('notes')}, ''), 1, ${sql.lit(prefix.length)}) = ${prefix}`
}

/** historyKind's `recovered`: it names a provider (to) but chose none. */
const recovered = sql<boolean>`(${sql.ref('reason')} = ${RECOVERED} and ${sql.ref('from_provider_id')} is null and ${notesOpen(PROVIDER_NOTES)})`
/** isRotation(historyKind(record)): a provider was chosen (rotation or failover). */
const rotations = sql<number>`sum(case when ${sql.ref('to_provider_id')} is not null and not ${recovered} then 1 else 0 end)`
/** historyKind's `failover`. */
const failovers = sql<number>`sum(case when ${sql.ref('to_provider_id')} is not null and ${notesOpen(FAILOVER_NOTES)} then 1 else 0 end)`

/** Rotations and failovers in one minute. */
export interface MinuteCounts {
  /** The minute's start, ISO. */
  minute: string
  rotations: number
  failovers: number
}

const counts = <R extends { minute: string, rotations: unknown, failovers: unknown }>(row: R) =>
  ({ ...row, minute: `${row.minute}:00.000Z`, rotations: Number(row.rotations), failovers: Number(row.failovers) })

/** The pool's rotations and failovers per minute of [from, to), minutes without any left out. */
export function * countPoolMinutes (db: Db, poolId: number, from: string, to: string): Work<MinuteCounts[]> {
  const rows = yield * all(db.selectFrom('rotation_history')
    .select([minuteKey.as('minute'), rotations.as('rotations'), failovers.as('failovers')])
    .where('pool_id', '=', poolId)
    .where('timestamp', '>=', from)
    .where('timestamp', '<', to)
    .groupBy(minuteKey))
  return rows.map(counts)
}

/** Every pool's rotations and failovers per minute of [from, to), in one grouped query. */
export function * countMinutesByPool (db: Db, from: string, to: string): Work<Array<MinuteCounts & { pool_id: number }>> {
  const rows = yield * all(db.selectFrom('rotation_history')
    .select(['pool_id', minuteKey.as('minute'), rotations.as('rotations'), failovers.as('failovers')])
    .where('timestamp', '>=', from)
    .where('timestamp', '<', to)
    .groupBy(['pool_id', minuteKey]))
  return rows.map(counts)
}

/** Every pool's id and name, by id. */
export function * listPoolNames (db: Db): Work<Array<{ id: number, name: string }>> {
  return yield * all(db.selectFrom('pools').select(['id', 'name']).orderBy('id'))
}
