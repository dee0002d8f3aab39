/**
 * What a stream reads of its pool's row (the `ws_*` fields, issue 37; their rules,
 * `ws_replay`'s included, are rules/stream-settings.ts).
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
