/**
 * One Buffer for a cached head and a short per-request tail (the list answer and
 * its timestamp), without allocating and copying the head for every request.
 *
 * Measured on the 550 KB list: a fresh Buffer per answer (Buffer.concat) or the
 * two parts as a stream cost the service about twice the CPU of sending one
 * Buffer it already holds; the allocation (and its page faults) and the split
 * write, not the copy, are what cost. So each head keeps a few full-size Buffers:
 * a request takes a free one, rewrites only its tail in place, and gives it back
 * once its response is closed (Node has handed every byte to the kernel, or the
 * connection is gone and none will be sent).
 */

/** Buffers kept free per head; more concurrent answers allocate their own. */
const FREE_PER_HEAD = 16

/** Builds the set of reusable answer buffers. */
export function createReplyBuffers () {
  const free = new WeakMap<Buffer, Buffer[]>()
  return {
    /** A Buffer holding `head` then `tail`; hand it to `release` when its response is closed. */
    take (head: Buffer, tail: Buffer): Buffer {
      const list = free.get(head)
      const buffer = list?.[list.length - 1]
      if (buffer === undefined || buffer.length !== head.length + tail.length) return Buffer.concat([head, tail])
      list?.pop()
      tail.copy(buffer, head.length)
      return buffer
    },

    /** Takes back a Buffer `take` gave for `head`, for another answer. */
    release (head: Buffer, buffer: Buffer): void {
      let list = free.get(head)
      if (list === undefined) free.set(head, list = [])
      if (list.length < FREE_PER_HEAD) list.push(buffer)
    }
  }
}

export type ReplyBuffers = ReturnType<typeof createReplyBuffers>
