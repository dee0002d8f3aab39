/**
 * A pool's settings for WebSocket streams through it, the pure parts: their
 * defaults and bounds (the API's schemas, the pool rules and migration 022 read
 * them here, so the three agree) and the two forms of `ws_replay`. What to replay
 * to a new upstream after a failover is `none`, `first_second` (what the client
 * sent in its stream's first second) or a number N (its first N messages); it is
 * stored as text (`none`, `first_second` or N in decimal) and answered with N as a
 * JSON integer. The streams themselves read the stored form (runtime's pool row).
 */

/** A pool's stream settings when none is given, as migration 022 gives existing pools. */
export const STREAM_DEFAULTS = {
  ws_ping_interval_ms: 30_000,
  ws_replay: 'first_second',
  ws_max_streams: 1000,
  ws_max_streams_per_client: 100,
  ws_max_message_bytes: 1_048_576,
  ws_send_buffer_bytes: 4_194_304,
  ws_idle_timeout_ms: 300_000
} as const

/** The bounds of the numeric stream settings, both included (`ws_idle_timeout_ms` 0: no idle timeout). */
export const STREAM_BOUNDS = {
  ws_ping_interval_ms: { minimum: 1000, maximum: 3_600_000 },
  ws_max_streams: { minimum: 1, maximum: 100_000 },
  ws_max_streams_per_client: { minimum: 1, maximum: 100_000 },
  ws_max_message_bytes: { minimum: 1024, maximum: 16_777_216 },
  ws_send_buffer_bytes: { minimum: 65_536, maximum: 67_108_864 },
  ws_idle_timeout_ms: { minimum: 0, maximum: 86_400_000 }
} as const

/** The numeric stream settings, by name. */
export type StreamLimit = keyof typeof STREAM_BOUNDS

/** `ws_replay`'s named modes. */
export const REPLAY_MODES = ['none', 'first_second'] as const
export type ReplayMode = typeof REPLAY_MODES[number]

/** The most client messages `ws_replay` may name (its integer form runs from 0 to this). */
export const MAX_REPLAY_MESSAGES = 100

/** `ws_replay` as the API takes and answers it: a mode, or the number of the client's first messages. */
export type Replay = ReplayMode | number

/** The stored text of a replay setting: the mode, or the count in decimal. */
export const storedReplay = (replay: Replay): string => typeof replay === 'number' ? String(replay) : replay

/**
 * A stored replay setting as the API answers it: the mode, or the count as a
 * number. Text that is neither (never written by this service) reads as the default.
 */
export function shownReplay (stored: string): Replay {
  if ((REPLAY_MODES as readonly string[]).includes(stored)) return stored as ReplayMode
  return /^(0|[1-9][0-9]{0,2})$/.test(stored) && Number(stored) <= MAX_REPLAY_MESSAGES ? Number(stored) : STREAM_DEFAULTS.ws_replay
}

/**
 * Whether a client's `index`-th message (from 0), sent `sinceOpenMs` after its stream
 * opened, is kept for replays under `replay`: none, the first N, or (`first_second`)
 * those of the stream's first second.
 */
export function keptForReplay (replay: Replay, index: number, sinceOpenMs: number): boolean {
  if (typeof replay === 'number') return index < replay
  return replay === 'first_second' && sinceOpenMs <= 1_000
}
