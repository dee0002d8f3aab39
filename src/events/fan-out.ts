/**
 * The event stream's live listeners and what goes out to them: each event to every
 * listener whose filter it passes, and heartbeats. A listener that does not read
 * is dropped once it holds more than the buffer bound unsent: a slow client never
 * slows the service or grows its memory. `onIdle` is told whenever a listener is
 * dropped, so the hub can stop polling when nobody is left. (What a listener
 * missed is sent before it joins: replay.ts.)
 */
import { eventText, passes, type Listener, type ServiceEvent } from './service-event.js'

/** Builds the fan-out over `maxBufferedBytes` (the drop bound). */
export function createFanOut ({ maxBufferedBytes, onIdle }: { maxBufferedBytes: number, onIdle: () => void }) {
  const listeners = new Set<Listener>()

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
    /** Listeners that receive events. */
    size: (): number => listeners.size,

    add (listener: Listener): void {
      listeners.add(listener)
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
    },

    /** Ends every stream (shutdown). */
    endAll (): void {
      for (const listener of listeners) listener.end()
      listeners.clear()
    }
  }
}

export type FanOut = ReturnType<typeof createFanOut>
