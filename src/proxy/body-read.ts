/**
 * An answer's body read into memory to be looked at (an RPC call's answer, judged by
 * rpc-answer.ts), cheaply: its chunks gathered from `data` events, with no timer or
 * promise per chunk, and one timer per read. A body over the limit, over the bytes
 * all reads may hold, or slower than READ_LIMIT_MS is not held: what was read and
 * the rest stream on, unread (its error passed on). And a Buffer handed on as the readable body the answer stages expect.
 */
import { PassThrough, Readable } from 'node:stream'

/** Bytes of bodies all reads may hold at once (past it, a body streams on unread, as past its own limit). */
const budget = { left: 256 * 1024 * 1024 }

/** How long a read may take; past it the body streams on unread (an answer that dribbles is not held). */
export const READ_LIMIT_MS = 5_000

/**
 * `body` whole; or, past `limit` bytes, the shared budget or READ_LIMIT_MS, a stream of
 * all of it (read and unread, the body's error passed on); rejects with the body's error.
 */
export async function readBounded (body: Readable, limit: number): Promise<Buffer | Readable> {
  return await new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const done = () => {
      clearTimeout(timer)
      budget.left += size
      body.off('data', onData); body.off('end', onEnd); body.off('error', onError)
    }
    const onward = () => {
      done()
      body.pause()
      const rest = new PassThrough()
      for (const read of chunks) rest.write(read)
      // The body's error ends the stream that carries it; until a reader listens it is kept, not thrown.
      rest.on('error', () => {})
      body.once('error', (error) => { rest.destroy(error) })
      rest.once('close', () => { if (!body.readableEnded) body.destroy() })
      body.pipe(rest)
      resolve(rest)
    }
    const onData = (chunk: Buffer) => {
      chunks.push(chunk)
      size += chunk.length
      budget.left -= chunk.length
      if (size > limit || budget.left < 0) onward()
    }
    const onEnd = () => { done(); resolve(Buffer.concat(chunks, size)) }
    const onError = (error: Error) => { done(); reject(error) }
    const timer = setTimeout(onward, READ_LIMIT_MS)
    body.on('data', onData)
    body.once('end', onEnd)
    body.once('error', onError)
  })
}

/** A Buffer as a readable body: one chunk, then the end. */
export function bodyOf (bytes: Buffer): Readable {
  const readable = new Readable({ read () {} })
  readable.push(bytes)
  readable.push(null)
  return readable
}
