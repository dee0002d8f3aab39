/**
 * How a list answer (a body kept by the read model and a short per-request tail,
 * its timestamp) goes out without a copy of the body made and kept per request.
 *
 * Small answers, up to COPY_MAX: one Buffer. Measured on the 550 KB list, a fresh
 * Buffer per answer (Buffer.concat) or the parts as a stream cost the service
 * about twice the CPU of sending one Buffer it already holds; the allocation (and
 * its page faults) and the split write, not the copy, are what cost. So each body
 * keeps a few full-size Buffers: a request takes a free one, rewrites only its
 * tail in place, and gives it back once its response is closed (Node has handed
 * every byte to the kernel, or the connection is gone and none will be sent).
 *
 * Larger answers (the whole list of thousands of pools, tens of MB): the body's
 * pieces themselves, shared by every request and never written to, then the
 * tail, as a stream that writes the next piece only when the socket has taken the
 * last (backpressure). Copying 40 MB per request, and keeping sixteen such copies,
 * cost more than the split writes save (docs/performance.md).
 */
import { Readable } from 'node:stream'
import type { ListBody } from './read-model.js'

/** Buffers kept free per body; more concurrent answers allocate their own. */
const FREE_PER_BODY = 16

/** The largest answer sent as one Buffer; larger ones are streamed piece by piece. */
export const COPY_MAX = 1024 * 1024

/** Builds the set of reusable answer buffers. */
export function createReplyBuffers () {
  const free = new WeakMap<ListBody, Buffer[]>()
  return {
    /** A Buffer holding `body` then `tail`; hand it to `release` when its response is closed. */
    take (body: ListBody, tail: Buffer): Buffer {
      const list = free.get(body)
      const buffer = list?.[list.length - 1]
      if (buffer === undefined || buffer.length !== body.length + tail.length) return Buffer.concat([...body.pieces, tail])
      list?.pop()
      tail.copy(buffer, body.length)
      return buffer
    },

    /** Takes back a Buffer `take` gave for `body`, for another answer. */
    release (body: ListBody, buffer: Buffer): void {
      let list = free.get(body)
      if (list === undefined) free.set(body, list = [])
      if (list.length < FREE_PER_BODY) list.push(buffer)
    }
  }
}

export type ReplyBuffers = ReturnType<typeof createReplyBuffers>

/** `pieces` one after the other, each pushed once the reader wants more (no copy). */
class Pieces extends Readable {
  #next = 0
  constructor (private readonly pieces: readonly Buffer[]) {
    super()
  }

  override _read (): void {
    const { pieces } = this
    while (this.#next < pieces.length) {
      if (!this.push(pieces[this.#next++])) return
    }
    this.push(null)
  }
}

/** The body's pieces and then `tail`, as a stream. */
export function piecesStream (body: ListBody, tail: Buffer): Readable {
  return new Pieces([...body.pieces, tail])
}
