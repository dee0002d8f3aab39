/**
 * Resuming a stream from a Last-Event-ID, paced: what a listener missed is read
 * from storage a page at a time (history, then audit, toward where the live stream
 * stands) and each page is written before the next is read, so the first events go
 * out at once and a replay never sits whole in memory. The next page waits until
 * the client has taken what it holds (below REPLAY_HIGH_WATER: the socket's
 * backpressure), and for its turn: across every replay of the process, at most
 * PAGES_AT_ONCE pages are read at once, each in an event-loop turn of its own, so
 * twenty clients resuming from the start cost the other requests one page at a time,
 * not twenty replays. A replay whose client has gone stops at once (nothing more is
 * read). A replay reads at most MAX_REPLAY events; past them it skips to where the
 * stream stands (older events are in the history API). Once a replay has caught up
 * with the live stream it is handed to the hub, which joins it to the fan-out
 * between two polls (event-hub.ts): nothing is missed or sent twice.
 */
import type { WorkRunner } from '../db/work.js'
import { auditAfter, historyAfter } from './event.repository.js'
import { auditEvent, eventText, historyEvent, passes, type Cursor, type Listener, type ServiceEvent } from './service-event.js'

/** Most events read for one replay (older ones are in the history API). */
export const MAX_REPLAY = 10_000

/** Rows read per page of a replay. */
export const REPLAY_PAGE = 250

/** Pages read at once across every replay of the process (each in an event-loop turn of its own). */
export const PAGES_AT_ONCE = 2

/** Bytes a replaying client may hold unsent before the replay waits for it to take them. */
export const REPLAY_HIGH_WATER = 64 * 1024

interface Deps {
  database: WorkRunner
  /** Where the live stream stands (undefined before the hub's first poll and once it stops). */
  position: () => Cursor | undefined
  /** Bytes a listener may hold unsent (the drop bound): a replay pauses at half of it, at most at REPLAY_HIGH_WATER. */
  maxBufferedBytes: number
  /** A replay caught up with the stream: the hub joins it to the fan-out at its next poll. */
  caughtUp: () => void
  warn: (error: unknown, message: string) => void
}

/** One listener's replay. */
interface Replay {
  readonly listener: Listener
  /** Where its replay stands: the events after it are still to be sent. */
  readonly cursor: Cursor
  /** Events read so far (bounded by MAX_REPLAY). */
  read: number
  /** Reading and writing (running), or caught up and waiting to join the fan-out. */
  state: 'running' | 'caught-up'
  gone: boolean
  /** Resolves when its client goes (unblocks a wait for the client to drain). */
  readonly left: Promise<void>
  leave: () => void
}

/** Resolves in a later turn of the event loop (after pending I/O). */
const nextTurn = async (): Promise<void> => { await new Promise((resolve) => setImmediate(resolve)) }

/**
 * Runs steps at most `atOnce` at a time, each started in a turn of the event loop
 * of its own (SQLite reads are synchronous: started from one turn, several would run
 * back to back while requests wait).
 */
function createTurns (atOnce: number) {
  let running = 0
  const waiting: Array<() => void> = []
  function startNext (): void {
    while (running < atOnce && waiting.length > 0) {
      running++
      setImmediate(waiting.shift() as () => void)
    }
  }
  return async function turn<T> (step: () => Promise<T>): Promise<T> {
    await new Promise<void>((resolve) => { waiting.push(resolve); startNext() })
    try {
      return await step()
    } finally {
      running--
      startNext()
    }
  }
}

/** Whether `cursor` stands at or past `to` in both sources. */
const reached = (cursor: Cursor, to: Cursor): boolean => cursor.history >= to.history && cursor.audit >= to.audit

/** Builds the process's replays; each runs from `start` until it catches up, its client goes, or `endAll`. */
export function createReplays ({ database, position, maxBufferedBytes, caughtUp, warn }: Deps) {
  const replays = new Map<Listener, Replay>()
  const turn = createTurns(PAGES_AT_ONCE)
  const highWater = Math.min(REPLAY_HIGH_WATER, Math.floor(maxBufferedBytes / 2))

  /** The next page of `replay` toward `to` (history first, then audit); the cursor moves past it. */
  async function readPage (replay: Replay, to: Cursor): Promise<ServiceEvent[]> {
    const { cursor } = replay
    const source = cursor.history < to.history ? 'history' : 'audit'
    const limit = Math.min(REPLAY_PAGE, MAX_REPLAY - replay.read)
    const events: ServiceEvent[] = []
    if (source === 'history') {
      const rows = (await database.read((db) => historyAfter(db, cursor.history, limit))).filter((row) => row.id <= to.history)
      for (const row of rows) {
        cursor.history = row.id
        events.push(historyEvent(row, cursor))
      }
      if (rows.length < limit) cursor.history = to.history
    } else {
      const rows = (await database.read((db) => auditAfter(db, cursor.audit, limit))).filter((row) => row.id <= to.audit)
      for (const row of rows) {
        cursor.audit = row.id
        events.push(auditEvent(row, cursor))
      }
      if (rows.length < limit) cursor.audit = to.audit
    }
    replay.read += events.length
    return events
  }

  /** Waits, unless `replay`'s client has gone, until it holds at most the high-water mark unsent. */
  async function drained (replay: Replay, held: number): Promise<void> {
    if (held <= highWater || replay.gone) return
    await Promise.race([replay.listener.drained(), replay.left])
  }

  /** Reads and writes `replay` page by page until it catches up with the stream or its client goes. */
  async function run (replay: Replay): Promise<void> {
    const { listener, cursor } = replay
    while (!replay.gone) {
      const to = position()
      if (to === undefined) return
      if (replay.read >= MAX_REPLAY) {
        // The rest is skipped: the client goes on from where the stream stands.
        cursor.history = Math.max(cursor.history, to.history)
        cursor.audit = Math.max(cursor.audit, to.audit)
      }
      if (reached(cursor, to)) {
        replay.state = 'caught-up'
        caughtUp()
        return
      }
      const events = await turn(async () => replay.gone ? [] : await readPage(replay, to))
      for (const event of events) {
        if (replay.gone) return
        if (!passes(listener, event)) continue
        await drained(replay, listener.write(eventText(event)))
      }
      await nextTurn()
    }
  }

  function start (replay: Replay): void {
    replay.state = 'running'
    run(replay).catch((error: unknown) => {
      warn(error, 'replaying events failed')
      // The client comes back with the last id it has and the replay goes on from there.
      if (!replay.gone) replay.listener.end()
    })
  }

  return {
    /** Replays running or waiting to join. */
    size: (): number => replays.size,

    /** Starts replaying to `listener` what came after `from` (the hub has a position: it has polled). */
    add (listener: Listener, from: Cursor): void {
      let leave = () => {}
      const left = new Promise<void>((resolve) => { leave = resolve })
      const replay: Replay = { listener, cursor: { ...from }, read: 0, state: 'running', gone: false, left, leave }
      replays.set(listener, replay)
      start(replay)
    },

    /**
     * Called by the hub's poll, with where the stream stands, before it reads what
     * comes next: the replays caught up with `at` leave (the hub adds them to the
     * fan-out); those left behind since they caught up go on replaying.
     */
    joining (at: Cursor): Listener[] {
      const joined: Listener[] = []
      for (const replay of replays.values()) {
        if (replay.state !== 'caught-up') continue
        if (reached(replay.cursor, at)) {
          replays.delete(replay.listener)
          joined.push(replay.listener)
        } else {
          start(replay)
        }
      }
      return joined
    },

    /** Stops `listener`'s replay (its client went): nothing more is read for it. */
    remove (listener: Listener): void {
      const replay = replays.get(listener)
      if (replay === undefined) return
      replay.gone = true
      replay.leave()
      replays.delete(listener)
    },

    /** Ends every replay's stream (shutdown). */
    endAll (): void {
      for (const replay of replays.values()) {
        replay.gone = true
        replay.leave()
        replay.listener.end()
      }
      replays.clear()
    }
  }
}

export type Replays = ReturnType<typeof createReplays>
