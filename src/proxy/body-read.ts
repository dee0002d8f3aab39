/**
 * An answer's body read into memory to be looked at (an RPC call's answer, judged by
 * rpc-answer.ts), cheaply: its chunks gathered from `data` events, with no timer or
 * promise per chunk (undici's body timeout, the member's own, bounds a body that
 * stalls). A body over the limit is not held: what was read and the rest stream on,
 * unread. And a Buffer handed on as the readable body the answer stages expect.
 */
import { PassThrough, Readable } from 'node:stream'

/** `body` whole, or past `limit` bytes a stream of all of it (read and unread); rejects with the body's error. */
export async function readBounded (body: Readable, limit: number): Promise<Buffer | Readable> {
  return await new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const done = () => { body.off('data', onData); body.off('end', onEnd); body.off('error', onError) }
    const onData = (chunk: Buffer) => {
      chunks.push(chunk)
      size += chunk.length
      if (size <= limit) return
      done()
      body.pause()
      const rest = new PassThrough()
      for (const read of chunks) rest.write(read)
      body.pipe(rest)
      resolve(rest)
    }
    const onEnd = () => { done(); resolve(Buffer.concat(chunks, size)) }
    const onError = (error: Error) => { done(); reject(error) }
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
