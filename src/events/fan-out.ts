/**
 * The event stream's listeners and what goes out to them: each event to every
 * listener whose filter it passes, heartbeats, and a joiner's replay (replay.ts).
 * A listener that does not read is dropped once it holds more than the buffer
 * bound unsent: a slow client never slows the service or grows its memory. A
 * stream ended after a piece of its replay still counts until its connection
 * closes. `onIdle` is told whenever a listener leaves this way, so the hub can
 * stop polling when nobody is left.
 */
import { endPiece, replayTo } from './replay.js'
import { eventText, passes, type Listener, type ServiceEvent } from './service-event.js'

/** Builds the fan-out over `maxBufferedBytes` (the drop bound). */
export function createFanOut ({ maxBufferedBytes, onIdle }: { maxBufferedBytes: number, onIdle: () => void }) {
  const listeners = new Set<Listener>()
  /** Streams ended after a piece of a replay, still counted until their connection closes. */
  const finishing = new Set<Listener>()

  /** Sends `text` to `listener`, dropping it when its client has stopped reading. */
  function send (listener: Listener, text: string): void {
    if (!listeners.has(listener)) return
    if (listener.write(text) > maxBufferedBytes) drop(listener)
  }

  function drop (listener: Listener): void {
    listeners.delete(listener)
    listener.end()
    onIdle()
  }

  return {
    /** Listeners that receive events (not those finishing a piece). */
    listening: (): number => listeners.size,

    /** Listeners counted towards the hub's size, finishing ones included. */
    size: (): number => listeners.size + finishing.size,

    add (listener: Listener): void {
      listeners.add(listener)
    },

    /** Sends a joiner what it missed; a replay cut into pieces ends this piece of its stream. */
    replay (listener: Listener, events: ServiceEvent[]): void {
      if (!replayTo(listener, events, maxBufferedBytes)) return
      listeners.delete(listener)
      finishing.add(listener)
      endPiece(listener)
      onIdle()
    },

    /** Sends each event to the listeners whose filter it passes. */
    broadcast (events: ServiceEvent[]): void {
      for (const event of events) {
        const text = eventText(event)
        for (const listener of listeners) if (passes(listener, event)) send(listener, text)
      }
    },

    heartbeat (): void {
      for (const listener of listeners) send(listener, ': heartbeat\n\n')
    },

    /** Forgets a listener whose client went away (the caller decides whether that leaves the hub idle). */
    remove (listener: Listener): void {
      listeners.delete(listener)
      finishing.delete(listener)
    },

    /** Ends every stream, listening or finishing (shutdown). */
    endAll (): void {
      for (const listener of [...listeners, ...finishing]) listener.end()
      listeners.clear()
      finishing.clear()
    }
  }
}

export type FanOut = ReturnType<typeof createFanOut>
