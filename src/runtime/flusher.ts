/**
 * The write-behind flusher: writes one FlushBatch (batch.ts) in ONE transaction —
 * counters added, health merged, latencies per member and minute (one batched
 * upsert), pool counters, history records, refusals learned (a refusal new to the
 * database goes into the history of the pool whose request met it), unused quota
 * given back — and reads back the change_seq of the pools the runtime keeps, so
 * other processes' cooldowns and admin changes reach this process within an interval.
 * It knows nothing of the runtime: a batch in, a FlushResult out (flush-loop.ts runs
 * it every interval, at shutdown and before an API call reads). A crash loses at most
 * what was pending: one interval of proxy counters and outcomes.
 */
import type { Db } from '../db/types.js'
import { alreadyTouched } from '../db/unit-of-work.js'
import type { Work, WorkRunner } from '../db/work.js'
import { recordFailover } from '../pools/history-records.repository.js'
import { insertHistory } from '../pools/history.repository.js'
import { addMemberMinutes } from '../pools/member-minutes.repository.js'
import { lockPool } from '../pools/pool.repository.js'
import { recordRefusal } from '../providers/refusal.repository.js'
import { refusalRecord } from '../rules/history-kind.js'
import type { FlushBatch, FlushResult } from './batch.js'
import { listChangeSeqsOfPools, returnQuota, writeMemberDelta, writePoolDelta } from './runtime.repository.js'

/**
 * One flush. Rows are locked in the order every API transaction locks them — pools
 * (by id), then providers, then members — so a flush never waits in a circle with
 * a rotation, a report or another process's flush. The pool a refusal is recorded
 * in (the one whose request met it) is locked with the batch's own.
 */
export function * flushWork (db: Db, batch: FlushBatch, maxRefusalsPerProvider: number): Work<FlushResult> {
  const written = new Map<number, number>()
  const alive = new Set<number>()
  for (const poolId of [...new Set([...batch.pools.keys(), ...batch.refusals.map((r) => r.poolId)])].sort((a, b) => a - b)) {
    const delta = batch.pools.get(poolId)
    if (delta === undefined) {
      if (yield * lockPool(db, poolId)) alive.add(poolId)
      continue
    }
    const seq = yield * writePoolDelta(db, poolId, delta)
    if (seq !== undefined) {
      written.set(poolId, seq)
      alive.add(poolId)
    }
  }
  // Providers are locked by id (refusals, then quota returns), as every other writer locks them.
  for (const r of [...batch.refusals].sort((a, b) => a.providerId - b.providerId)) {
    // Recorded in the history once, by the write that finds no refusal in force (in any
    // process), in the pool whose request met it only: a caller of one pool whose requests a
    // provider refuses cannot fill the history of the provider's other pools.
    if ((yield * recordRefusal(db, r.providerId, r.resource, r.at, r.expiresAt, maxRefusalsPerProvider, r.statusCode)) !== 'learned') continue
    if (alive.has(r.poolId)) yield * insertHistory(db, { pool_id: r.poolId, ...refusalRecord(r.providerId, r.resource, r.expiresAt, r.statusCode), timestamp: r.at })
  }
  for (const r of [...batch.quotaReturns].sort((a, b) => a.providerId - b.providerId)) yield * returnQuota(db, r.providerId, r.window, r.unused)
  const present = new Set<number>()
  for (const [memberId, d] of batch.members) {
    if (yield * writeMemberDelta(db, { memberId, uses: d.uses, successes: d.successes, failures: d.failures, lastUsed: d.lastUsed, health: d.health }, batch.at)) present.add(memberId)
  }
  // Only members still there (a removed member's minutes would refuse the rows).
  yield * addMemberMinutes(db, [...batch.latencies.values()].filter((s) => present.has(s.memberId)))
  // A pool deleted meanwhile takes its history with it (and would refuse the rows).
  for (const r of batch.history) {
    if (!written.has(r.poolId)) continue
    if (r.kind === 'failover') yield * recordFailover(db, r)
    else yield * insertHistory(db, { pool_id: r.poolId, ...r.record, timestamp: r.at })
  }
  // writePoolDelta moved their change_seq: told after the commit, bumped by nothing more.
  yield * alreadyTouched([...batch.pools.keys()])
  return { changeSeqs: yield * listChangeSeqsOfPools(db, batch.knownPools), written }
}

/**
 * Writes the batch down in one transaction and answers what it read; nothing is written
 * when it throws. `database` is a unit-of-work runner (unitOfWork): the pools written are
 * told to its change sink once the transaction has committed.
 */
export async function writeBatch (database: WorkRunner, batch: FlushBatch, maxRefusalsPerProvider: number): Promise<FlushResult> {
  return await database.transact((db) => flushWork(db, batch, maxRefusalsPerProvider))
}
