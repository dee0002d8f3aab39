/**
 * WebSocket clients for the stream tests (the `ws` package): one that records what it
 * received and how it closed, and a wait for a condition rather than a duration.
 */
import WebSocket from 'ws'

/** A client socket and what it received. */
export interface Client { ws: WebSocket, messages: string[], closed: Promise<{ code: number, reason: string }> }

/** Opens a client stream to `url`; rejects with the HTTP status of a refused upgrade. */
export async function openClient (url: string, protocols: string[] = [], headers: Record<string, string> = {}): Promise<Client> {
  const ws = new WebSocket(url, protocols, { headers })
  const messages: string[] = []
  ws.on('message', (data) => { messages.push(String(data)) })
  const closed = new Promise<{ code: number, reason: string }>((resolve) => { ws.on('close', (code, reason) => { resolve({ code, reason: String(reason) }) }) })
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => { resolve() })
    ws.once('unexpected-response', (_req, res) => {
      let body = ''
      res.on('data', (chunk: Buffer) => { body += String(chunk) })
      res.on('end', () => { reject(Object.assign(new Error(`upgrade refused: ${res.statusCode ?? 0} ${body}`), { status: res.statusCode, body })) })
    })
    ws.once('error', reject)
  })
  return { ws, messages, closed }
}

/** Waits until `ready()` holds (checked every 10 ms), failing after `ms`. */
export async function until (ready: () => boolean, ms = 5_000, what = 'condition'): Promise<void> {
  for (const deadline = Date.now() + ms; !ready();) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}
