/**
 * Whether the response cache's Redis can be reached, as the store's log lines and
 * /healthz say it. A request waits at most the command timeout (250 ms) for Redis,
 * but one slow answer is not an outage: a timeout starts a contact check that pings
 * Redis for up to `contactTimeoutMs` (3 s), and only when nothing answers within it
 * is Redis reported unreachable. The start is the same: a first answer that comes
 * late (a busy machine) is not an outage either. A connection refused or lost is
 * reported at once, as it says Redis is not there. While it is reported, Redis is
 * pinged every second, so /healthz clears on its own once Redis answers, with or
 * without traffic. Each outage is logged once, and once when it ends.
 */
import type { Redis } from 'ioredis'
import { maskText } from '../rules/secrets.js'

/** How a command that waited too long fails (ioredis' commandTimeout). */
const TIMED_OUT = 'Command timed out'
/** How often an outage already reported is checked for its end. */
const RECHECK_MS = 1000

export interface RedisContact {
  /** null while Redis answers; otherwise the sentence for /healthz detail and logs. */
  problem (): string | null
  /** A command was answered. */
  answered (): void
  /** A command, or the connection, failed with `error`. */
  failed (error: unknown): void
  /** Stops checking. */
  close (): void
}

/** Watches `redis` (shown in sentences as `shownUrl`); `warn` hears of each outage once, and of its end. */
export function watchRedisContact (redis: Redis, options: {
  shownUrl: string, warn: (message: string) => void, commandTimeoutMs: number, contactTimeoutMs: number, now?: () => number
}): RedisContact {
  const { shownUrl, warn, commandTimeoutMs, contactTimeoutMs } = options
  const now = options.now ?? Date.now
  let problem: string | null = null
  /** The last connection error: why commands are refused while disconnected. */
  let connectionError: Error | undefined
  let everReady = false
  /** Since when answers have been late (a contact check is under way), or undefined. */
  let lateSince: number | undefined
  let lastReason = TIMED_OUT
  let timer: NodeJS.Timeout | undefined
  let closed = false

  const reasonOf = (error: unknown): string => String((error as { code?: unknown })?.code ?? (error instanceof Error ? error.message : String(error)))
  const declare = (reason: string): void => {
    const wasUsable = problem === null
    problem = `cache: Redis at ${shownUrl} unreachable: ${maskText(reason)}; serving without the cache`
    if (wasUsable) warn(problem)
    lateSince = undefined
    recheck(RECHECK_MS)
  }
  const answered = (): void => {
    everReady = true
    connectionError = undefined
    lateSince = undefined
    if (problem === null) return
    problem = null
    warn(`cache: Redis at ${shownUrl} answers again; serving with the cache`)
  }
  /** An answer came late: checked until one comes, reported when none does within contactTimeoutMs. */
  const late = (reason: string): void => {
    lastReason = reason
    if (problem !== null || lateSince !== undefined) return
    lateSince = now()
    recheck(0)
  }
  const recheck = (ms: number): void => {
    clearTimeout(timer)
    if (!closed) timer = setTimeout(check, ms).unref()
  }
  /** One step of a check: a ping when connected (else ioredis reconnects, and its 'ready' answers). */
  function check (): void {
    timer = undefined
    if (closed || (problem === null && lateSince === undefined)) return
    if (problem === null && now() - (lateSince as number) >= contactTimeoutMs) {
      declare(lastReason)
      return
    }
    const next = (): void => { if (problem !== null || lateSince !== undefined) recheck(problem !== null ? RECHECK_MS : commandTimeoutMs) }
    if (redis.status !== 'ready') {
      next()
      return
    }
    redis.ping().then(answered, (error: unknown) => {
      if (problem === null) lastReason = reasonOf(error)
      next()
    })
  }

  const failed = (error: unknown): void => {
    if (closed) return
    // Redis answered, with an error of its own (a key of another type, no memory left): it is there.
    if (error instanceof Error && error.name === 'ReplyError') return
    // Refused while the first connection is still being made: a miss, not an outage.
    if (!everReady && connectionError === undefined && redis.status !== 'ready') return
    // A command refused while disconnected says only that; the connection's own error says why.
    const cause = redis.status === 'ready' ? error : connectionError ?? new Error(`not connected (${redis.status})`)
    if (cause instanceof Error && cause.message === TIMED_OUT) late(TIMED_OUT)
    else declare(reasonOf(cause))
  }
  redis.on('error', (error: Error) => {
    connectionError = error
    failed(error)
  })
  redis.on('ready', answered)

  return {
    problem: () => problem,
    answered,
    failed,
    close: () => {
      closed = true
      clearTimeout(timer)
    }
  }
}
