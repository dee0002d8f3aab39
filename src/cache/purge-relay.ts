/**
 * With WORKERS=N and the memory cache, each worker holds its own entries, so a
 * purge answered by one worker must reach the others: the worker that took
 * `DELETE /api/pools/{id}/cache` asks the cluster primary, which relays the purge to
 * every worker that has joined (its own memory store built) and answers with what
 * they removed in all. The primary waits RELAY_TIMEOUT_MS at most: a worker that has
 * not answered by then is named in its log, and the answer comes without it. A
 * worker that died meanwhile took its entries with it. With Redis there is one store
 * for all, and none of this runs (a purge there is already shared, counted once).
 */
import cluster, { type Worker } from 'node:cluster'

/** How long the primary waits for every worker's count. */
export const RELAY_TIMEOUT_MS = 2000

/** The messages, in the shape of the cluster's other ones (`cmd`). */
const JOIN = 'sourcepool:cache-purge-join'
const PURGE = 'sourcepool:cache-purge'
const PURGE_HERE = 'sourcepool:cache-purge-here'
const PURGED_HERE = 'sourcepool:cache-purged-here'
const PURGED = 'sourcepool:cache-purged'

interface Message { cmd?: unknown, id?: unknown, poolId?: unknown, removed?: unknown }

/** One worker's side: its own purge answers the primary; a purge asked of it goes to all. */
export interface PurgeRelay {
  /** Answers the primary's purges with `purgeHere` (this worker's own purge) from now on. */
  serve (purgeHere: (poolId: number) => Promise<number>): void
  /** Purges the pool in every worker; answers how many entries they removed in all. */
  purgeEverywhere (poolId: number): Promise<number>
  close (): void
}

/** This worker's side of the relay, or undefined in a process that is not a cluster worker. */
export function joinPurgeRelay (warn: (message: string) => void): PurgeRelay | undefined {
  if (!cluster.isWorker || process.send === undefined) return undefined
  let purgeHere: (poolId: number) => Promise<number> = async () => 0
  let seq = 0
  const waiting = new Map<string, (removed: number) => void>()
  const send = (message: Message): void => { process.send?.(message, undefined, {}, () => {}) }
  const onMessage = (message: Message | null): void => {
    if (message?.cmd === PURGE_HERE && typeof message.poolId === 'number') {
      const { id, poolId } = message
      purgeHere(poolId).then((removed) => { send({ cmd: PURGED_HERE, id, removed }) }, () => { send({ cmd: PURGED_HERE, id, removed: 0 }) })
    } else if (message?.cmd === PURGED && typeof message.id === 'string') {
      waiting.get(message.id)?.(Number(message.removed) || 0)
    }
  }
  process.on('message', onMessage)
  return {
    serve (own) {
      purgeHere = own
      send({ cmd: JOIN })
    },
    async purgeEverywhere (poolId) {
      const id = `${process.pid}:${++seq}`
      const removed = await new Promise<number | undefined>((resolve) => {
        // The primary answers within its own wait; past that it is gone or stuck.
        const timer = setTimeout(() => { resolve(undefined) }, RELAY_TIMEOUT_MS + 1000)
        waiting.set(id, (count) => {
          clearTimeout(timer)
          resolve(count)
        })
        send({ cmd: PURGE, id, poolId })
      })
      waiting.delete(id)
      if (removed !== undefined) return removed
      warn(`cache: the purge of pool ${poolId} was not relayed to the other workers (the primary did not answer); purged this worker only`)
      return await purgeHere(poolId)
    },
    close () {
      process.off('message', onMessage)
    }
  }
}

type Log = (level: 'info' | 'warn' | 'error', fields: Record<string, unknown>, msg: string) => void

/** One purge the primary relays: the workers it waits for, and what they removed so far. */
interface Relayed {
  readonly poolId: number
  readonly asker: Worker
  readonly pending: Set<Worker>
  removed: number
  readonly timer: NodeJS.Timeout
}

/** The primary's side: relays each worker's purge to every worker that joined, and answers with the total. */
export function relayCachePurges (log: Log, timeoutMs = RELAY_TIMEOUT_MS): void {
  const joined = new Set<Worker>()
  const relayed = new Map<string, Relayed>()
  const tell = (worker: Worker, message: Message): void => { worker.send(message, undefined, () => {}) }
  const finish = (id: string, purge: Relayed): void => {
    relayed.delete(id)
    clearTimeout(purge.timer)
    tell(purge.asker, { cmd: PURGED, id, removed: purge.removed })
  }
  const answered = (id: string, worker: Worker, removed: number): void => {
    const purge = relayed.get(id)
    if (purge === undefined || !purge.pending.delete(worker)) return
    purge.removed += removed
    if (purge.pending.size === 0) finish(id, purge)
  }
  const start = (asker: Worker, id: string, poolId: number): void => {
    const pending = new Set([...joined].filter((worker) => worker.isConnected()))
    const timer = setTimeout(() => {
      const late = [...purge.pending].map((worker) => worker.process.pid)
      log('warn', { poolId, workerPids: late, timeoutMs }, 'cache purge: workers did not answer in time; answered without them')
      finish(id, purge)
    }, timeoutMs)
    const purge: Relayed = { poolId, asker, pending, removed: 0, timer }
    relayed.set(id, purge)
    if (pending.size === 0) finish(id, purge)
    for (const worker of pending) tell(worker, { cmd: PURGE_HERE, id, poolId })
  }
  cluster.on('message', (worker: Worker, message: Message | null) => {
    if (message?.cmd === JOIN) joined.add(worker)
    else if (message?.cmd === PURGE && typeof message.id === 'string' && typeof message.poolId === 'number') start(worker, message.id, message.poolId)
    else if (message?.cmd === PURGED_HERE && typeof message.id === 'string') answered(message.id, worker, Number(message.removed) || 0)
  })
  // A worker gone took its entries with it: nothing to wait for.
  cluster.on('exit', (worker: Worker) => {
    joined.delete(worker)
    for (const [id] of relayed) answered(id, worker, 0)
  })
}
