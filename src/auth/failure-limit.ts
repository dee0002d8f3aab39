/**
 * Failed authentications counted per client address in fixed one-minute windows:
 * past the limit, every request from that address that needs a token is answered
 * 429 until the window ends, so secrets cannot be guessed at the speed of the
 * service. Memory is bounded whatever the number of addresses. The address is
 * `request.ip`: the connecting peer, or behind a front door that TRUST_PROXY
 * trusts, the client it reported (so one client cannot lock out the others).
 */

/** Addresses remembered at most; beyond it, the oldest windows are forgotten first. */
const MAX_ADDRESSES = 100_000

/** The window failures are counted in. */
export const FAILURE_WINDOW_MS = 60_000

interface Window { start: number, failures: number }

/** Builds a limiter allowing `limit` failures per address per window, on the clock `now` (ms). */
export function createFailureLimiter (limit: number, now: () => number) {
  const windows = new Map<string, Window>()

  function current (address: string, at: number): Window | undefined {
    const window = windows.get(address)
    if (window !== undefined && at - window.start >= FAILURE_WINDOW_MS) {
      windows.delete(address)
      return undefined
    }
    return window
  }

  return {
    /** Seconds until `address` may try again, or undefined when it may now. */
    retryAfterS (address: string): number | undefined {
      const at = now()
      const window = current(address, at)
      if (window === undefined || window.failures < limit) return undefined
      return Math.max(1, Math.ceil((window.start + FAILURE_WINDOW_MS - at) / 1000))
    },

    /** Counts one failed authentication from `address`. */
    fail (address: string): void {
      const at = now()
      const window = current(address, at)
      if (window !== undefined) {
        window.failures++
        return
      }
      if (windows.size >= MAX_ADDRESSES) {
        // Maps iterate in insertion order: the first entries are the oldest windows.
        for (const key of windows.keys()) {
          windows.delete(key)
          if (windows.size < MAX_ADDRESSES * 0.9) break
        }
      }
      windows.set(address, { start: at, failures: 1 })
    }
  }
}

export type FailureLimiter = ReturnType<typeof createFailureLimiter>
