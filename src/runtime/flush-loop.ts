/**
 * When the runtime writes down: every FLUSH_INTERVAL_MS, when an API call asks
 * (settle) and at shutdown; one flush at a time. Each flush is drain → write → apply:
 * the state (runtime-state.ts) hands over an immutable batch, the flusher (flusher.ts)
 * writes it and answers what it read, the state applies that, and change-news.ts marks
 * and tells what the flush changed. A batch that could not be written goes back to
 * the state, for the next flush.
 */
import type { FlushBatch, FlushResult } from './batch.js'
import type { ChangeNews } from './change-news.js'
import type { RuntimeState } from './runtime-state.js'

interface Deps {
  now: () => Date
  memory: Pick<RuntimeState, 'drain' | 'putBack' | 'apply'>
  /** Writes a batch down (flusher.ts writeBatch). */
  write: (batch: FlushBatch) => Promise<FlushResult>
  news: Pick<ChangeNews, 'flushed'>
  warn: (error: unknown, message: string) => void
}

/** Builds the loop; nothing runs until `start` or `flush`. */
export function createFlushLoop ({ now, memory, write, news, warn }: Deps) {
  let running: Promise<void> | undefined
  let timer: NodeJS.Timeout | undefined
  let queued: Promise<void> | undefined

  async function once (): Promise<void> {
    const batch = memory.drain(now())
    if (batch === undefined) return
    let result: FlushResult
    try {
      result = await write(batch)
    } catch (error) {
      memory.putBack(batch)
      warn(error, 'flush failed; its counters are kept for the next one')
      return
    }
    memory.apply(batch, result)
    await news.flushed(batch)
  }

  /** Resolves when no flush is under way. */
  async function idle (): Promise<void> {
    for (let current = running; current !== undefined; current = running) await current
  }

  function begin (): Promise<void> {
    const mine = once().finally(() => { running = undefined })
    running = mine
    return mine
  }

  async function flush (): Promise<void> {
    // One flush at a time; a flush asked for during one runs after it, and that one
    // queued flush serves every caller who asks meanwhile (it takes what is pending when
    // it starts), so a burst of API calls waits for at most two flushes, not one each.
    if (running === undefined) return await begin()
    queued ??= (async () => {
      for (let current = running; current !== undefined; current = running) await current.catch(() => {})
      // The check and the start are in one synchronous step: no second flush starts beside it.
      queued = undefined
      await begin()
    })()
    await queued
  }

  return {
    /** Writes down what is pending and reads what other processes changed (after the flush under way, if any). */
    flush,
    idle,
    /** Flushes every `intervalMs`. */
    start (intervalMs: number): void {
      if (timer !== undefined) return
      timer = setInterval(() => { flush().catch((error: unknown) => { warn(error, 'flush failed') }) }, intervalMs)
      timer.unref()
    },
    /** Stops the timer and flushes what is left. */
    async stop (): Promise<void> {
      if (timer !== undefined) clearInterval(timer)
      timer = undefined
      await flush()
    }
  }
}
