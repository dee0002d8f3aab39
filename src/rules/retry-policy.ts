/**
 * The proxy's retry policy as pure rules (issue 28): the request's deadline (the
 * pool's, which a client may shorten with a header but never lengthen), the retry
 * budget (Envoy's model: over a sliding window, retries at most a percent of first
 * attempts, with a floor so a quiet pool can still fail over) and the backoff
 * before a retry (full jitter). No clock and no randomness of their own: the
 * caller passes both, so each rule is tested on its own.
 */

/** A pool's deadline across a request's attempts and waits when none is set. */
export const DEFAULT_DEADLINE_MS = 30_000
/** Bounds of a deadline: a pool's field, and what a client's header may ask. */
export const MIN_DEADLINE_MS = 100
export const MAX_DEADLINE_MS = 600_000
/** Retries a pool allows per window, as a percent of its first attempts, when none is set. */
export const DEFAULT_RETRY_BUDGET_PERCENT = 20
/** The retry budget's sliding window, and the retries it always allows within one. */
export const BUDGET_WINDOW_MS = 10_000
export const MIN_RETRIES_PER_WINDOW = 3

/** The header a client shortens a request's deadline with (milliseconds). */
export const DEADLINE_HEADER = 'x-sourcepool-deadline-ms'
/** The 400's detail for a malformed one. */
export const DEADLINE_HEADER_PROBLEM = `${DEADLINE_HEADER} must be a whole number of milliseconds from 1 to ${MAX_DEADLINE_MS}`

/** A request's headers without the client's deadline header (a call shared by several clients runs on the pool's own). */
export function withoutDeadline<H extends Readonly<Record<string, unknown>>> (headers: H): H {
  if (headers[DEADLINE_HEADER] === undefined) return headers
  const { [DEADLINE_HEADER]: _deadline, ...rest } = headers
  return rest as H
}

/**
 * The deadline of one request: the pool's, or the client's header when it asks for
 * less (never more). `invalid` for a header that is not a whole number of
 * milliseconds from 1 to MAX_DEADLINE_MS.
 */
export function requestDeadline (poolMs: number, header: string | string[] | undefined): { readonly ms: number, readonly shortened: boolean } | 'invalid' {
  if (header === undefined) return { ms: poolMs, shortened: false }
  if (typeof header !== 'string' || !/^\d{1,7}$/.test(header.trim())) return 'invalid'
  const asked = Number(header.trim())
  if (asked < 1 || asked > MAX_DEADLINE_MS) return 'invalid'
  return asked < poolMs ? { ms: asked, shortened: true } : { ms: poolMs, shortened: false }
}

/** Slots of the window: counts are kept per 1/SLOTS of it, so it slides in steps of a second. */
const SLOTS = 10
const SLOT_MS = BUDGET_WINDOW_MS / SLOTS

/**
 * One pool's retry budget in one process: first attempts and retries counted in
 * SLOTS slots of the window, the oldest dropped as time moves on.
 */
export class RetryBudget {
  private readonly firsts = new Array<number>(SLOTS).fill(0)
  private readonly retries = new Array<number>(SLOTS).fill(0)
  /** The slot (time / SLOT_MS) the newest counts are in. */
  private slot = -Infinity

  /** Moves the window to `nowMs`, emptying the slots that fell out of it. */
  private advance (nowMs: number): void {
    const slot = Math.floor(nowMs / SLOT_MS)
    if (slot <= this.slot) return
    const passed = Math.min(SLOTS, slot - this.slot)
    for (let i = 1; i <= passed; i++) {
      const at = (slot - passed + i) % SLOTS
      this.firsts[at] = 0
      this.retries[at] = 0
    }
    this.slot = slot
  }

  /** Counts a request's first attempt at `nowMs`. */
  first (nowMs: number): void {
    this.advance(nowMs)
    const at = this.slot % SLOTS
    this.firsts[at] = (this.firsts[at] ?? 0) + 1
  }

  /** The retries the window allows at `percent` (at least MIN_RETRIES_PER_WINDOW), and those made, at `nowMs`. */
  state (percent: number, nowMs: number): { readonly allowed: number, readonly made: number, readonly firsts: number } {
    this.advance(nowMs)
    let firsts = 0
    let made = 0
    for (let i = 0; i < SLOTS; i++) {
      firsts += this.firsts[i] as number
      made += this.retries[i] as number
    }
    return { allowed: Math.max(MIN_RETRIES_PER_WINDOW, Math.floor(firsts * percent / 100)), made, firsts }
  }

  /** True when the budget at `percent` has a retry left at `nowMs`. */
  allows (percent: number, nowMs: number): boolean {
    const { allowed, made } = this.state(percent, nowMs)
    return made < allowed
  }

  /**
   * Counts a retry made at `nowMs`. (Asked with `allows` before the member is
   * chosen, counted once it is: requests choosing at the same moment may overshoot
   * by as many as choose at once.)
   */
  spend (nowMs: number): void {
    this.advance(nowMs)
    const at = this.slot % SLOTS
    this.retries[at] = (this.retries[at] ?? 0) + 1
  }

  /** True when no count is left in the window at `nowMs` (the budget can be dropped). */
  idle (nowMs: number): boolean {
    const { made, firsts } = this.state(0, nowMs)
    return made === 0 && firsts === 0
  }
}

/**
 * The wait before attempt `attempt` (2 for the first retry): a random time in
 * [0, base × 2^(attempt − 2)] (full jitter), never past `leftMs`.
 */
export function backoffMs (baseMs: number, attempt: number, random: () => number, leftMs: number): number {
  if (baseMs <= 0 || attempt < 2) return 0
  const ceiling = baseMs * 2 ** Math.min(attempt - 2, 20)
  return Math.max(0, Math.min(Math.floor(random() * (ceiling + 1)), ceiling, leftMs))
}
