/**
 * A client of `GET /api/events` for the tests that read the stream over real HTTP:
 * the events, comments and raw blocks received so far, with waits bounded in time
 * (bounds, not speed checks).
 */
import { request as httpRequest, type IncomingMessage } from 'node:http'

export interface Received { id: string | undefined, event: string, data: any }

/** An open stream: what it received so far. */
export interface Stream {
  readonly events: Received[]
  readonly comments: string[]
  /** Every block as sent (`retry: …`, `id: …\nevent: …\ndata: …`, comments). */
  readonly blocks: string[]
  readonly response: IncomingMessage
  /** The events once there are `count`, or those there are after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>
  /** The first block matching `test`; rejects after `timeoutMs`. */
  nextBlock(test: (block: string) => boolean, timeoutMs?: number): Promise<string>
  close(): void
}

/** Opens the stream at `url`; `localAddress` picks the client's address (several clients on loopback). */
export async function openStream (url: string, headers: Record<string, string> = {}, localAddress?: string): Promise<Stream> {
  return await new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers, ...(localAddress === undefined ? {} : { localAddress }) }, (response) => {
      const events: Received[] = []
      const comments: string[] = []
      const blocks: string[] = []
      let buffer = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => {
        buffer += chunk
        let end: number
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          blocks.push(block)
          const fields = new Map<string, string>()
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim())
            else {
              const colon = line.indexOf(':')
              fields.set(line.slice(0, colon), line.slice(colon + 1).trim())
            }
          }
          if (fields.has('event')) events.push({ id: fields.get('id'), event: fields.get('event') as string, data: JSON.parse(fields.get('data') ?? 'null') })
        }
      })
      resolve({
        events,
        comments,
        blocks,
        response,
        async waitFor (count, timeoutMs = 5000) {
          const deadline = Date.now() + timeoutMs
          while (events.length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
          return events
        },
        async nextBlock (test, timeoutMs = 15_000) {
          const deadline = Date.now() + timeoutMs
          while (Date.now() < deadline) {
            const found = blocks.find(test)
            if (found !== undefined) return found
            await new Promise((resolve) => setTimeout(resolve, 20))
          }
          throw new Error(`no such block within ${timeoutMs} ms; received: ${JSON.stringify(blocks)}`)
        },
        close: () => { req.destroy() }
      })
    })
    req.on('error', reject)
    req.end()
  })
}
