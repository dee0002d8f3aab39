/**
 * Per-minute activity as pure rules: the window of whole UTC minutes a chart shows
 * (the last one the current, partial minute), the minute an instant falls in, and
 * latency observations added up per member and minute before they are written
 * (`member_minutes`: samples and their sum, so the mean of a minute is exact
 * however many processes and writes it took).
 */

export const MINUTE_MS = 60_000

/** The most minutes a window may span (24 hours). */
export const MAX_ACTIVITY_MINUTES = 1440

/** How long per-minute latencies are kept: the longest window and an hour to spare. */
export const ACTIVITY_RETENTION_MS = 25 * 60 * MINUTE_MS

/** The start of the minute `at` (an ISO timestamp or a Date) falls in, as stored: `2026-11-23T22:41:00.000Z`. */
export function minuteOf (at: string | Date): string {
  const ms = typeof at === 'string' ? Date.parse(at) : at.getTime()
  const start = Math.floor(ms / MINUTE_MS) * MINUTE_MS
  // Every proxied attempt asks, nearly always for the same minute: its text is made once.
  if (start !== lastMinute.start) {
    lastMinute.start = start
    lastMinute.text = new Date(start).toISOString()
  }
  return lastMinute.text
}

/** The minute `minuteOf` answered last (a pure function's memo: same input, same text). */
const lastMinute = { start: NaN, text: '' }

/** `minutes` whole minutes ending with the one `now` is in, oldest first. */
export interface ActivityWindow {
  /** The start of each minute, oldest first. */
  readonly minuteStarts: readonly string[]
  /** The first minute's start (inclusive). */
  readonly from: string
  /** The end of the current minute (exclusive). */
  readonly to: string
}

export function activityWindow (now: Date, minutes: number): ActivityWindow {
  const current = Math.floor(now.getTime() / MINUTE_MS) * MINUTE_MS
  const minuteStarts: string[] = []
  for (let i = minutes - 1; i >= 0; i--) minuteStarts.push(new Date(current - i * MINUTE_MS).toISOString())
  return { minuteStarts, from: minuteStarts[0] as string, to: new Date(current + MINUTE_MS).toISOString() }
}

/** Each minute's position in the window, by the minute's start. */
export function minutePositions (window: ActivityWindow): ReadonlyMap<string, number> {
  return new Map(window.minuteStarts.map((start, i) => [start, i]))
}

/** Latency observations of one member in one minute. */
export interface MinuteSample {
  readonly memberId: number
  /** The minute's start (minuteOf). */
  readonly minute: string
  samples: number
  latencySum: number
}

/** Adds one latency observation made at `at` to `pending` (keyed by member and minute). */
export function foldSample (pending: Map<string, MinuteSample>, memberId: number, at: string | Date, latencyMs: number): void {
  const minute = minuteOf(at)
  const key = `${memberId}|${minute}`
  const known = pending.get(key)
  if (known === undefined) pending.set(key, { memberId, minute, samples: 1, latencySum: latencyMs })
  else {
    known.samples++
    known.latencySum += latencyMs
  }
}

/** Adds the samples of `from` to `into` (a batch that could not be written goes back in front of what came since). */
export function mergeSamples (into: Map<string, MinuteSample>, from: ReadonlyMap<string, MinuteSample>): void {
  for (const [key, sample] of from) {
    const known = into.get(key)
    if (known === undefined) into.set(key, { ...sample })
    else {
      known.samples += sample.samples
      known.latencySum += sample.latencySum
    }
  }
}
