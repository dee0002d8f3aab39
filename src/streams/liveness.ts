/**
 * Watching an upstream socket for a silent death: a ping every `intervalMs`
 * (`ws_ping_interval_ms`), and a socket that has not answered the previous ping
 * by the next one is dead (a member that hangs with its TCP connection open would
 * otherwise hold a stream for good). Any message counts as an answer too.
 */
import type WebSocket from 'ws'

/** Starts watching `socket`; `dead` is called once. Returns the stop. */
export function watchUpstream (socket: WebSocket, intervalMs: number, dead: (why: string) => void): () => void {
  let answered = true
  const heard = () => { answered = true }
  socket.on('pong', heard)
  socket.on('message', heard)
  const timer = setInterval(() => {
    if (!answered) {
      stop()
      dead(`no pong within ws_ping_interval_ms (${intervalMs} ms)`)
      return
    }
    answered = false
    try { socket.ping() } catch {}
  }, intervalMs)
  timer.unref()
  const stop = () => {
    clearInterval(timer)
    socket.off('pong', heard)
    socket.off('message', heard)
  }
  return stop
}

/**
 * Ends a client stream that has carried no message either way for `timeoutMs`
 * (`ws_idle_timeout_ms`; 0: never). `active()` says when the last message went;
 * the timer is set again for what is left rather than moved per message.
 */
export function watchIdle (timeoutMs: number, lastActive: () => number, idle: () => void): () => void {
  if (timeoutMs <= 0) return () => {}
  let timer: NodeJS.Timeout
  const arm = (ms: number) => {
    timer = setTimeout(() => {
      const left = lastActive() + timeoutMs - Date.now()
      if (left <= 0) idle()
      else arm(left)
    }, ms)
    timer.unref()
  }
  arm(timeoutMs)
  return () => { clearTimeout(timer) }
}
