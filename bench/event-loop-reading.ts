/**
 * What the event-loop probe (event-loop-probe.ts, inside the service) and the
 * bench (event-loop-service.ts) agree on: the message asking for a reading, the
 * reading's shape and the histogram's sampling interval. Its own module, so the
 * bench can use them without loading the probe (which starts a histogram).
 */

/** The histogram's sampling interval, prom-client's default: an idle loop reads about this much. */
export const RESOLUTION_MS = 10

/** The message that asks for a reading (and resets the histogram). */
export interface ReadMessage {
  readonly type: 'sourcepool-bench:event-loop-delay'
  /**
   * With BENCH_EVENT_LOOP_PROFILES set (a folder, passed to the service as
   * PROBE_PROFILE_DIR): the name of the CPU profile to take until the next read.
   */
  readonly profile?: string
}
export const READ_TYPE = 'sourcepool-bench:event-loop-delay'

/** What one read answers (milliseconds; rss in bytes): the delays since the read before it. */
export interface DelayReading {
  readonly max: number
  readonly p99: number
  readonly p50: number
  readonly samples: number
  readonly rss: number
}
