/**
 * The event stream's hub, one per process: while anyone listens it polls, every
 * poll interval, what was stored since (event-feed.ts: rotation history and audit
 * trail, by id, so events of every process on the database arrive, within an
 * interval) and hands each event to the listeners whose filter it passes
 * (fan-out.ts, which drops a listener that does not read once its buffer passes
 * a bound: a slow client never slows the service or grows its memory). A
 * listener joining with a cursor (Last-Event-ID) is first given what it missed,
 * from storage, paced by its client and shared with the other replays (replay.ts),
 * beside the polls; once it has caught up with where the stream stands, a poll
 * adds it to the fan-out before reading what comes next, so nothing is lost or
 * repeated. The hub stops polling when nobody is left, and starts again from what
 * is newest when someone comes.
 */
import type { WorkRunner } from '../db/work.js'
import { createEventFeed } from './event-feed.js'
import { createFanOut } from './fan-out.js'
import { createReplays } from './replay.js'
import type { Cursor, Listener } from './service-event.js'

export { auditEvent, EVENT_TYPES, eventText, historyEvent, type Cursor, type EventType, type Listener, type ServiceEvent } from './service-event.js'

interface Deps {
  database: WorkRunner
  pollMs: number
  heartbeatMs: number
  /** Bytes a listener may hold unsent before it is dropped. */
  maxBufferedBytes: number
  warn?: (error: unknown, message: string) => void
}

/** Builds the hub; it reads nothing while nobody listens. */
export function createEventHub ({ database, pollMs, heartbeatMs, maxBufferedBytes, warn = () => {} }: Deps) {
  /** Listeners that came since the last poll (with the cursor they resume from, if any). */
  const joining: Array<{ listener: Listener, from: Cursor | undefined }> = []
  const fanOut = createFanOut({ maxBufferedBytes, onIdle: stopWhenIdle })
  const feed = createEventFeed(database)
  const replays = createReplays({ database, position: feed.position, maxBufferedBytes, caughtUp: () => { tick() }, warn })
  let timer: NodeJS.Timeout | undefined
  let heartbeat: NodeJS.Timeout | undefined
  let polling: Promise<void> | undefined
  let closed = false

  /** Nobody listens, replays or joins any more: the polls and heartbeats stop. */
  function stopWhenIdle (): void {
    if (fanOut.size() === 0 && replays.size() === 0 && joining.length === 0) stop()
  }

  async function poll (): Promise<void> {
    await feed.start()
    // From here to the read of what comes next nothing awaits: whoever joins the
    // fan-out now stands where the stream stands, and gets what comes next.
    const position = feed.position() as Cursor
    for (const { listener, from } of joining.splice(0)) {
      if (from === undefined) fanOut.add(listener)
      else replays.add(listener, from)
    }
    for (const listener of replays.joining(position)) fanOut.add(listener)
    fanOut.broadcast(await feed.next(position))
  }

  function tick (): void {
    if (polling !== undefined || timer === undefined) return
    polling = poll().catch((error: unknown) => { warn(error, 'reading events failed') }).finally(() => { polling = undefined })
  }

  function start (): void {
    if (timer !== undefined || closed) return
    timer = setInterval(tick, pollMs)
    timer.unref()
    heartbeat = setInterval(fanOut.heartbeat, heartbeatMs)
    heartbeat.unref()
  }

  function stop (): void {
    if (timer !== undefined) clearInterval(timer)
    if (heartbeat !== undefined) clearInterval(heartbeat)
    timer = undefined
    heartbeat = undefined
    // Nobody listens: the next listener starts from what is newest then.
    feed.reset()
  }

  return {
    /** How many listen (live, replaying, or joining). */
    size: (): number => fanOut.size() + replays.size() + joining.length,

    /** Adds a listener, from `from` (what it missed is sent first) or from now; answers how to remove it. */
    subscribe (listener: Listener, from?: Cursor): () => void {
      joining.push({ listener, from })
      start()
      tick()
      return () => {
        fanOut.remove(listener)
        replays.remove(listener)
        const at = joining.findIndex((j) => j.listener === listener)
        if (at !== -1) joining.splice(at, 1)
        stopWhenIdle()
      }
    },

    /** Ends every stream (shutdown). */
    async close (): Promise<void> {
      closed = true
      stop()
      await polling
      fanOut.endAll()
      replays.endAll()
      for (const { listener } of joining) listener.end()
      joining.length = 0
    }
  }
}

export type EventHub = ReturnType<typeof createEventHub>
