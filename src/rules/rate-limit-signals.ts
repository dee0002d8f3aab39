/**
 * What a provider's answer says about its own rate limit, read from its headers, so a
 * member that has said "no requests left until T" is not asked again before T. Pure:
 * the time is a parameter; whatever the headers hold, nothing here throws, and a
 * value it cannot read is ignored rather than guessed.
 *
 * Accepted, with the header that names the pause in `source`:
 *  - `Retry-After` (429 and 503 only): delta-seconds (a fraction is rounded up) or an
 *    HTTP-date (IMF-fixdate, RFC 850 or asctime, RFC 9110 §5.6.7).
 *  - a "remaining" header at 0 with its reset, the first usable of its resets:
 *      x-ratelimit-remaining          x-ratelimit-reset-after, x-ratelimit-reset   (GitHub, Discord, Reddit, many APIs)
 *      ratelimit-remaining            ratelimit-reset                              (IETF drafts up to 06)
 *      x-rate-limit-remaining         x-rate-limit-reset                           (X/Twitter)
 *      x-ratelimit-remaining-requests x-ratelimit-reset-requests                   (OpenAI and its clones; -tokens too)
 *      anthropic-ratelimit-requests-remaining  anthropic-ratelimit-requests-reset  (Anthropic; -tokens too)
 *    A reset is seconds to wait; a number over 10^9 is a Unix time in seconds, over
 *    10^12 one in milliseconds; a Go-style duration (`1m30s`, `250ms`); or a date
 *    (HTTP-date, or RFC 3339 with its offset).
 *  - `RateLimit` (IETF draft 07+): list members `"policy";r=0;t=N`, any with r=0
 *    counts and the longest t wins; also draft 07's `remaining=0, reset=N`.
 * Several sources at 0 → the longest pause. A value over 1 KiB is not read.
 */
import { splitOutsideQuotes } from './header-lists.js'
import { httpDateMs as dateMs } from './http-date.js'

type Headers = Record<string, string | string[] | undefined>

export interface RateLimitSignals {
  /** Seconds to cool down from `Retry-After`. */
  readonly retryAfterS?: number
  /** Seconds until the provider's quota resets, when it says none is left. */
  readonly pauseS?: number
  /** The header that gave `pauseS`, e.g. `x-ratelimit-remaining`. */
  readonly source?: string
}

const MAX_VALUE_LENGTH = 1024

/** Remaining headers and their resets, in order of preference. */
const REMAINING_RESETS: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['x-ratelimit-remaining', ['x-ratelimit-reset-after', 'x-ratelimit-reset']],
  ['ratelimit-remaining', ['ratelimit-reset']],
  ['x-rate-limit-remaining', ['x-rate-limit-reset']],
  ['x-ratelimit-remaining-requests', ['x-ratelimit-reset-requests']],
  ['x-ratelimit-remaining-tokens', ['x-ratelimit-reset-tokens']],
  ['anthropic-ratelimit-requests-remaining', ['anthropic-ratelimit-requests-reset']],
  ['anthropic-ratelimit-tokens-remaining', ['anthropic-ratelimit-tokens-reset']]
]

/** A header's value (several lines: the first, or all joined for a list field), trimmed; undefined if absent or too long. */
function read (headers: Headers, name: string, list = false): string | undefined {
  const raw = Object.hasOwn(headers, name) ? headers[name] : undefined
  const value = typeof raw === 'string' ? raw : Array.isArray(raw) ? (list ? raw.join(', ') : raw[0]) : undefined
  return typeof value === 'string' && value.length <= MAX_VALUE_LENGTH ? value.trim() : undefined
}

/** A non-negative decimal number, else undefined. */
function decimal (text: string | undefined): number | undefined {
  return text !== undefined && /^\d+(\.\d+)?$/.test(text) ? Number(text) : undefined
}

const DURATION = /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/
const DURATION_PART = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g
const UNIT_S: Readonly<Record<string, number>> = { ns: 1e-9, us: 1e-6, µs: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 }

/** Whole seconds (rounded up) until a reset, or undefined when unusable or not in the future. */
function resetSeconds (text: string | undefined, nowMs: number): number | undefined {
  if (text === undefined) return undefined
  let seconds: number | undefined
  const n = decimal(text)
  if (n !== undefined) seconds = n > 1e12 ? (n - nowMs) / 1000 : n > 1e9 ? n - nowMs / 1000 : n
  else if (DURATION.test(text)) seconds = [...text.matchAll(DURATION_PART)].reduce((sum, [, v, unit]) => sum + Number(v) * (UNIT_S[String(unit)] ?? 0), 0)
  else {
    const ms = dateMs(text, nowMs)
    if (ms !== undefined) seconds = (ms - nowMs) / 1000
  }
  return positive(seconds)
}

/** Whole seconds, rounded up, when more than 0 (a number too large to write is Infinity: capped later). */
function positive (seconds: number | undefined): number | undefined {
  return seconds !== undefined && seconds > 0 ? Math.ceil(seconds) : undefined
}

/** `Retry-After`: delta-seconds or an HTTP-date, in whole seconds from now. */
function retryAfterSeconds (text: string | undefined, nowMs: number): number | undefined {
  if (text === undefined) return undefined
  const n = decimal(text)
  if (n !== undefined) return positive(n)
  const ms = dateMs(text, nowMs)
  return ms === undefined ? undefined : positive((ms - nowMs) / 1000)
}

/** `key=value` pieces as a map (lower-case keys; the first of a key wins). */
function pairs (pieces: string[]): Map<string, string> {
  const map = new Map<string, string>()
  for (const piece of pieces) {
    const eq = piece.indexOf('=')
    const key = piece.slice(0, eq).trim().toLowerCase()
    if (eq > 0 && !map.has(key)) map.set(key, piece.slice(eq + 1).trim())
  }
  return map
}

/** The pause the IETF `RateLimit` field asks for, in seconds, or undefined. */
function structuredPause (text: string | undefined): number | undefined {
  if (text === undefined) return undefined
  const members = splitOutsideQuotes(text, ',')
  // Draft 07 and earlier: a dictionary, `limit=10, remaining=0, reset=5`.
  const dictionary = pairs(members)
  let longest = decimal(dictionary.get('remaining')) === 0 ? positive(decimal(dictionary.get('reset'))) : undefined
  // Draft 08 on: a list of `"policy";r=0;t=5`.
  for (const member of members) {
    const params = pairs(splitOutsideQuotes(member, ';'))
    const t = decimal(params.get('r')) === 0 ? positive(decimal(params.get('t'))) : undefined
    if (t !== undefined && (longest === undefined || t > longest)) longest = t
  }
  return longest
}

/**
 * What a provider's answer headers (lower-case names) say about its own rate limit,
 * at `now`, capped at `maxSeconds` (the pool's max_cooldown_seconds): `retryAfterS`
 * from `Retry-After` on a 429 or 503, and `pauseS` with its `source` when the
 * provider says no requests are left and when they come back. Each field is omitted
 * when there is nothing (or nothing usable); present, it is a number > 0.
 */
export function rateLimitSignals (status: number, headers: Headers, now: Date, maxSeconds: number): RateLimitSignals {
  const nowMs = now.getTime()
  const cap = (seconds: number | undefined): number | undefined => {
    const capped = seconds === undefined ? undefined : Math.min(seconds, maxSeconds)
    return capped !== undefined && capped > 0 ? capped : undefined
  }
  let pause: number | undefined
  let source: string | undefined
  const consider = (seconds: number | undefined, name: string): void => {
    if (seconds !== undefined && (pause === undefined || seconds > pause)) [pause, source] = [seconds, name]
  }
  for (const [remaining, resets] of REMAINING_RESETS) {
    if (decimal(read(headers, remaining)?.split(',')[0]?.trim()) !== 0) continue
    let seconds: number | undefined
    for (const reset of resets) seconds ??= resetSeconds(read(headers, reset), nowMs)
    consider(seconds, remaining)
  }
  consider(structuredPause(read(headers, 'ratelimit', true)), 'ratelimit')
  const retryAfterS = status === 429 || status === 503 ? cap(retryAfterSeconds(read(headers, 'retry-after'), nowMs)) : undefined
  const pauseS = cap(pause)
  return {
    ...(retryAfterS !== undefined && { retryAfterS }),
    ...(pauseS !== undefined && { pauseS, source })
  }
}
