/**
 * The measured alternative of issue 28, kept for bench/engine.ts: the proxy does
 * not use it, as it cost 0.88–1.01 of `request()`'s CPU per attempt (within the
 * noise; docs/performance.md). One attempt sent through undici's low-level `dispatch` with a handler of its
 * own, the lean counterpart of `agent.request()` (upstream-client.ts): no
 * Readable per answer, no AsyncResource, no abort signal; one object per attempt
 * is the handler, the answer's start and its body at once. The answer's headers
 * are undici's object, built once from the raw arrays (lower-cased names, a
 * repeated header as an array: the form forward.ts and the cache read). The body
 * is handed to a sink (the client's ServerResponse, or a collector for the cache)
 * with backpressure: a sink's `write` answering false pauses undici's parser
 * until its 'drain'; before a sink takes it, at most HELD bytes wait here, as in
 * the Readable request() would have made. The attempt's deadline is one
 * timer; before the answer starts it settles the attempt at once (even while the
 * connection is still being made) and calls undici off, after which the body is
 * no longer bound by it (undici's bodyTimeout still bounds each wait for a
 * chunk), as with request(). In place of a Readable, the route would `pipe` the
 * body to the client's response, the cache `collect` it (and `pipe` on past its
 * limit), a failure's answer `dump` it, and least_outstanding release the
 * attempt in `onClose`. Not wired in yet: upstream-client.ts still sends with
 * request() (bench/engine.ts measures both).
 */
import type { Dispatcher } from 'undici'
import type { SentAttempt } from '../src/proxy/attempt.js'

/**
 * Where an answer's body goes. A Node Writable (the client's ServerResponse)
 * fits as it is; so does a plain collector of chunks. `write` answering false
 * pauses the upstream until the sink's 'drain', or until the body is piped again.
 */
export interface BodySink {
  write: (chunk: Buffer) => boolean
  end: () => void
  destroy: (error?: Error) => void
  /** 'drain' resumes a paused body; 'close' before the body ends means the reader left: the upstream is let go. */
  once?: (event: 'drain' | 'close', listener: () => void) => unknown
  removeListener?: (event: 'drain' | 'close', listener: () => void) => unknown
}

/** What one attempt sends. */
export interface AttemptRequest {
  readonly origin: string
  readonly path: string
  readonly method: string
  readonly headers: Record<string, string | string[]>
  readonly body: Buffer | null
  /** Time for the answer to start (queue, connection and headers). */
  readonly timeoutMs: number
  /** Given a function that calls the attempt off before its answer starts (a hedge that lost). */
  readonly onCancel?: (cancel: () => void) => void
}

/** A sink that keeps nothing: a body thrown away is still read to its end, so the connection is kept. */
const DISCARD: BodySink = { write: () => true, end: () => {}, destroy: () => {} }

const NO_HEADERS: Record<string, string | string[] | undefined> = {}

/**
 * Bytes of a body kept before a sink takes it (undici's Readable holds as much
 * before it stops reading): a small answer is read whole without pausing the
 * parser, which is dearer than the copy.
 */
export const HELD = 64 * 1024

/**
 * An attempt in flight, and once its answer has started, that answer: its status,
 * its headers and its body, to be taken once by `pipe`, `collect` or `dump`.
 */
export class EngineAnswer implements Dispatcher.DispatchHandler {
  statusCode = 0
  headers: Record<string, string | string[] | undefined> = NO_HEADERS
  /** The attempt's outcome, once the answer started or the call failed. */
  readonly sent: Promise<SentAttempt<EngineAnswer>>

  private settle: ((sent: SentAttempt<EngineAnswer>) => void) | null = null
  private controller: Dispatcher.DispatchController | null = null
  private readonly started = performance.now()
  private timer: NodeJS.Timeout | undefined
  /** Why the attempt was called off before its answer started (its deadline, or a cancel). */
  private reason: Error | null = null
  private cancelled = false
  private sink: BodySink | null = null
  /** Chunks that came before a sink took the body, and their bytes. */
  private pending: Buffer[] | null = null
  private held = 0
  /** The body is over: ended, failed or let go. */
  private done = false
  private failure: Error | null = null
  private closed: (() => void) | null = null

  constructor (request: AttemptRequest) {
    this.sent = new Promise((resolve) => { this.settle = resolve })
    this.timer = setTimeout(this.expire, request.timeoutMs)
    request.onCancel?.(() => { this.callOff(new Error('The attempt was called off'), true) })
  }

  // -- undici's handler --

  onRequestStart (controller: Dispatcher.DispatchController): void {
    this.controller = controller
    if (this.reason !== null) controller.abort(this.reason)
  }

  onResponseStart (controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    // An interim answer (100, 102, 103): the final one follows.
    if (statusCode < 200) return
    clearTimeout(this.timer)
    this.statusCode = statusCode
    this.headers = headers
    this.finishStart({ response: this, latencyMs: Math.round(performance.now() - this.started) })
  }

  onResponseData (controller: Dispatcher.DispatchController, chunk: Buffer): void {
    const sink = this.sink
    if (sink === null) {
      // Kept until a sink takes the body (a small answer is whole by then); past HELD, the upstream waits.
      (this.pending ??= []).push(chunk)
      this.held += chunk.length
      if (this.held > HELD) controller.pause()
    } else if (!sink.write(chunk)) {
      controller.pause()
      sink.once?.('drain', this.resume)
    }
  }

  onResponseEnd (): void {
    if (this.done) return
    this.done = true
    this.sink?.end()
    this.close()
  }

  onResponseError (_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    clearTimeout(this.timer)
    if (this.settle !== null) {
      this.finishStart({ error: this.reason ?? error, timedOut: this.reason !== null && !this.cancelled, cancelled: this.cancelled, latencyMs: Math.round(performance.now() - this.started) })
      return
    }
    if (this.done) return
    this.done = true
    this.failure = error
    this.sink?.destroy(error)
    this.close()
  }

  // -- the answer's body --

  /**
   * Sends the body to `sink` (again, to switch sinks: what the last one took is
   * its own). Its end ends the sink; a failure of the provider's body destroys it;
   * the sink closing first lets the upstream go.
   */
  pipe (sink: BodySink): void {
    if (this.sink !== null && this.sink !== sink) this.sink.removeListener?.('close', this.readerLeft)
    this.sink = sink
    const pending = this.pending
    this.pending = null
    this.held = 0
    if (pending !== null) for (const chunk of pending) sink.write(chunk)
    if (this.failure !== null) { sink.destroy(this.failure); return }
    if (this.done) { sink.end(); return }
    sink.once?.('close', this.readerLeft)
    this.controller?.resume()
  }

  /**
   * Reads the body into memory up to `limit` bytes: the bytes when it ends within
   * it, or `undefined` past it (the body then waits, paused, for `pipe` with what
   * was read given in `read`). A failure of the provider's body rejects.
   */
  async collect (limit: number, read: Buffer[] = []): Promise<Buffer | undefined> {
    return await new Promise((resolve, reject) => {
      let size = 0
      this.pipe({
        write: (chunk) => {
          read.push(chunk)
          size += chunk.length
          if (size <= limit) return true
          resolve(undefined)
          return false
        },
        end: () => { resolve(Buffer.concat(read, size)) },
        destroy: (error) => { reject(error ?? new Error('The answer was let go')) }
      })
    })
  }

  /** Throws the body away, read to its end so the connection is kept (a failure's answer, a HEAD's). */
  dump (): void {
    this.pipe(DISCARD)
  }

  /** Lets the body go unread: the upstream connection is closed, and a sink taking it is destroyed. */
  abort (reason: Error = new Error('The answer was let go')): void {
    if (this.done) return
    this.done = true
    this.failure = reason
    this.controller?.abort(reason)
    this.sink?.destroy(reason)
    this.close()
  }

  /** `listener` runs once when the body is over (ended, failed or let go): where least_outstanding releases the attempt. */
  onClose (listener: () => void): void {
    if (this.done) listener()
    else this.closed = listener
  }

  // -- inner steps --

  private readonly resume = (): void => { this.controller?.resume() }

  private readonly readerLeft = (): void => { this.abort(new Error('The reader left before the answer ended')) }

  /** The attempt's deadline: the answer did not start in time. */
  private readonly expire = (): void => { this.callOff(new Error('The provider did not start its answer in time'), false) }

  /** Before the answer starts: the attempt settles now, and undici drops the request (at once, or when it reaches a connection). */
  private callOff (reason: Error, cancelled: boolean): void {
    if (this.settle === null) return
    clearTimeout(this.timer)
    this.reason = reason
    this.cancelled = cancelled
    this.finishStart({ error: reason, timedOut: !cancelled, cancelled, latencyMs: Math.round(performance.now() - this.started) })
    this.done = true
    this.controller?.abort(reason)
  }

  private finishStart (sent: SentAttempt<EngineAnswer>): void {
    const settle = this.settle
    this.settle = null
    settle?.(sent)
  }

  private close (): void {
    const closed = this.closed
    this.closed = null
    closed?.()
  }
}

/**
 * Sends one attempt through `dispatcher` (the client's Agent) and resolves when
 * its answer starts (the answer, its body still to take) or when it fails or is
 * called off (never rejects).
 */
export function dispatchAttempt (dispatcher: Dispatcher, request: AttemptRequest): Promise<SentAttempt<EngineAnswer>> {
  const answer = new EngineAnswer(request)
  dispatcher.dispatch({
    origin: request.origin,
    path: request.path,
    method: request.method as Dispatcher.HttpMethod,
    headers: request.headers,
    body: request.body,
    headersTimeout: request.timeoutMs,
    bodyTimeout: request.timeoutMs
  }, answer)
  return answer.sent
}
