/**
 * The event stream's hub, one per process: while anyone listens it polls, every
 * poll interval, what was stored since (event-feed.ts: rotation history and audit
 * trail, by id, so events of every process on the database arrive, within an
 * interval) and hands each event to the listeners whose filter it passes
 * (fan-out.ts, which drops a listener that does not read once its buffer passes
 * a bound: a slow client never slows the service or grows its memory). A
 * listener joining with a cursor (Last-Event-ID) is first given what it missed,
 * from storage, inside the same serialised poll, so nothing is lost or repeated
 * (replay.ts, in pieces when it is large). The hub stops polling when nobody is
 * left, and starts again from what is newest when someone comes.
 */
import type { WorkRunner } from '../db/work.js'
import { createEventFeed } from './event-feed.js'
import { createFanOut } from './fan-out.js'
import { readMissed } from './replay.js'
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
  const joining: Array<{ listener: Listener, from: Cursor | undefined }> = []
  const fanOut = createFanOut({ maxBufferedBytes, onIdle: stopWhenIdle })
  const feed = createEventFeed(database)
  let timer: NodeJS.Timeout | undefined
  let heartbeat: NodeJS.Timeout | undefined
  let polling: Promise<void> | undefined
  let closed = false

  /** Nobody listens or joins any more: the polls and heartbeats stop. */
  function stopWhenIdle (): void {
    if (fanOut.listening() === 0 && joining.length === 0) stop()
  }

  async function poll (): Promise<void> {
    await feed.start()
    // Joiners first, one at a time: what each missed, up to where everyone else stands.
    // One still waiting keeps the hub running while another's replay is cut (its
    // stream ends); taken all at once, they would be out of `joining` and the hub
    // would stop under them.
    for (let joiner = joining.shift(); joiner !== undefined; joiner = joining.shift()) {
      fanOut.add(joiner.listener)
      if (joiner.from !== undefined) fanOut.replay(joiner.listener, await readMissed(database, joiner.from, feed.position() as Cursor))
    }
    // The last joiner's replay was cut and nobody is left: the hub stopped and forgot its place.
    const position = feed.position()
    if (position === undefined) return
    fanOut.broadcast(await feed.next(position))
  }

  function tick (): void {
    if (polling !== undefined) return
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
    /** How many listen (or are joining). */
    size: (): number => fanOut.size() + joining.length,

    /** Adds a listener, from `from` (what it missed is sent first) or from now; answers how to remove it. */
    subscribe (listener: Listener, from?: Cursor): () => void {
      joining.push({ listener, from })
      start()
      tick()
      return () => {
        fanOut.remove(listener)
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
      for (const { listener } of joining) listener.end()
      joining.length = 0
    }
  }
}

export type EventHub = ReturnType<typeof createEventHub>
