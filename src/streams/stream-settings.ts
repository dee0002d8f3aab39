/**
 * What a stream reads of its pool's row (the `ws_*` fields, issue 37), and the
 * replay rule of `ws_replay`: which of a client's messages an `http` pool's stream
 * sends again to the member that takes it over — none, the first N, or (the
 * default) those sent in the first second after the stream opened.
 */

/** A pool's stream settings, as the runtime keeps its row. */
export interface StreamSettings {
  readonly forward_client_auth: number
  readonly ws_ping_interval_ms: number
  readonly ws_replay: string
  readonly ws_max_streams: number
  readonly ws_max_streams_per_client: number
  readonly ws_max_message_bytes: number
  readonly ws_send_buffer_bytes: number
  readonly ws_idle_timeout_ms: number
}

/** Which client messages are kept for a replay. */
export type ReplayRule =
  | { readonly kind: 'none' }
  | { readonly kind: 'first', readonly count: number }
  | { readonly kind: 'first_second' }

/** The rule a stored `ws_replay` names ('none', 'first_second' or a count). */
export function replayRule (stored: string): ReplayRule {
  if (stored === 'none') return { kind: 'none' }
  if (stored === 'first_second') return { kind: 'first_second' }
  const count = Number(stored)
  return Number.isInteger(count) && count > 0 ? { kind: 'first', count } : { kind: 'none' }
}

/** Whether the `index`-th message (from 0), sent `sinceOpenMs` after the stream opened, is kept for replays. */
export function keptForReplay (rule: ReplayRule, index: number, sinceOpenMs: number): boolean {
  switch (rule.kind) {
    case 'none': return false
    case 'first': return index < rule.count
    case 'first_second': return sinceOpenMs <= 1_000
  }
}
