/**
 * The data plane: every proxied request (`/api/pools/{id}/proxy/…`, `/p/{name}/…`,
 * entry.ts) served on the raw `node:http` request and response, outside Fastify's
 * per-request lifecycle (no request object, reply, hooks, child logger or schema
 * pass; app.ts hands it these requests before Fastify's router). It keeps what
 * Fastify's hooks did for the proxy route, in the order they did it:
 *
 *   admit (admit.ts: request id, Host, token scope, body) → the pool (by id, or its
 *   name: pool-names.ts) → its pipeline (pipeline.ts: the cache, cached-proxy.ts, when
 *   it has one, then the attempts, forwarding.ts) → answer (reply.ts)
 *
 * with Fastify's request log lines ("incoming request", "request completed", the
 * request's `reqId` on every line) and its per-route duration histogram. `handle`
 * is the part after admission: Fastify's own routes for the same URLs call it for
 * the few requests it keeps (proxy.routes.ts: an absolute-form target, say).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { FastifyBaseLogger } from 'fastify'
import type { FailureLimiter } from '../auth/failure-limit.js'
import type { Token } from '../auth/tokens.js'
import { DomainError } from '../errors.js'
import type { ClientAddress } from '../http/client-address.js'
import { sentenceFor } from '../http/error-handler.js'
import { requestIdGiven, requestIdOf } from '../http/request-id.js'
import type { Metrics } from '../metrics/metrics.js'
import { UnsafePathError } from '../rules/upstream-url.js'
import { authorize, BODY_CUT, hostRefusal, PROXY_BODY_LIMIT, readBody, type Refused } from './admit.js'
import { dataPlaneTarget, proxyUrlOf, type DataPlaneTarget } from './entry.js'
import type { Pipelines } from './pipeline.js'
import type { ServedAnswer } from './cached-proxy.js'
import { ALLOWED_METHODS, MethodNotAllowedError, type AttemptLog } from './forward.js'
import { isPreflight, sendAnswer, sendDetail, sendPreflight, RETRY_BUDGET_HEADER, type CorsOrigins, type ReplyContext, type StreamLog } from './reply.js'

export interface DataPlaneDeps {
  /** Each pool's compiled stages (pipeline.ts). */
  pipelines: Pick<Pipelines, 'forward' | 'now'>
  /** Pools by name (pool-names.ts). */
  poolNames: { byName: (name: string) => Promise<number | undefined>, now: (name: string) => number | undefined }
  tokens: readonly Token[]
  failures: FailureLimiter | undefined
  cors: CorsOrigins | null
  client: ClientAddress
  metrics: Pick<Metrics, 'observeRequest'>
  log: FastifyBaseLogger
  /** True once the service is closing (every answer then closes its connection). */
  closing: () => boolean
}

/** What admission learnt of a request, for the stages after it. */
export interface Admitted {
  readonly id: string
  readonly body: Buffer | undefined
}

/** Whether `log` writes lines at `level` (pino's own answer; a logger that cannot say, Fastify's silent one, writes none). */
const levelEnabled = (log: FastifyBaseLogger, level: string): boolean =>
  typeof (log as { isLevelEnabled?: unknown }).isLevelEnabled === 'function' && (log as unknown as { isLevelEnabled: (l: string) => boolean }).isLevelEnabled(level)

/** An attempt's log line with the request's id, built only when a line is written. */
class RequestLog implements AttemptLog {
  constructor (private readonly log: FastifyBaseLogger, private readonly id: string) {}
  info (fields: object, message: string): void { this.log.info({ reqId: this.id, ...fields }, message) }
  warn (fields: object, message: string): void { this.log.warn({ reqId: this.id, ...fields }, message) }
  isLevelEnabled (level: string): boolean { return levelEnabled(this.log, level) }
}

/** The operation's failure prefix in a 500's detail (as the route's `failure` config said it). */
const FAILURE = 'Failed to proxy the request'

/** Answers what the pool's pipeline served: the provider's answer, or the `{"detail"}` of a 503, 504 or 502. */
function sendServed (request: IncomingMessage, response: ServerResponse, context: ReplyContext, poolId: number, answer: ServedAnswer, log: StreamLog): void {
  const cache = answer.cache === undefined ? undefined : { 'x-sourcepool-cache': answer.cache }
  switch (answer.kind) {
    case 'answer':
      sendAnswer(request, response, context, answer, log)
      return
    case 'unavailable':
      sendDetail(request, response, context, 503, { detail: `No available providers in pool ${poolId}` },
        answer.retryAfterS === null ? cache : { ...cache, 'retry-after': String(answer.retryAfterS) })
      return
    case 'deadline':
      sendDetail(request, response, context, 504, { detail: `Deadline of ${answer.deadlineMs} ms exceeded for pool ${poolId}`, attempts: answer.attempts }, cache)
      return
    case 'failed':
      sendDetail(request, response, context, 502, { detail: `All providers failed for pool ${poolId}`, attempts: answer.attempts, refusals: answer.refusals },
        answer.retryBudget === undefined ? cache : { ...cache, [RETRY_BUDGET_HEADER]: answer.retryBudget })
  }
}

/** The data plane's handlers over its deps (one per app): its state is the deps alone. */
export class DataPlane {
  private readonly preflights: boolean

  constructor (private readonly deps: DataPlaneDeps) {
    this.preflights = deps.cors !== null
  }

  /** The pool `request` addresses when the data plane serves it, else undefined (Fastify's). */
  target (request: IncomingMessage): DataPlaneTarget | undefined {
    return dataPlaneTarget(request, this.preflights)
  }

  /** Serves a request `target` said is the data plane's, from its first byte. */
  serve (request: IncomingMessage, response: ServerResponse, target: DataPlaneTarget): void {
    const { deps } = this
    const started = performance.now()
    const id = requestIdOf(request)
    const logging = levelEnabled(deps.log, 'info')
    if (logging) deps.log.info({ reqId: id, req: { method: request.method, url: request.url, ip: deps.client.ip(request), socket: request.socket } }, 'incoming request')
    this.account(request, response, target.route, id, started, logging)
    const refused = hostRefusal(request) ?? authorize(deps.tokens, deps.failures, deps.tokens.length === 0 ? '' : deps.client.ip(request), request)
    if (refused !== undefined) { this.refuse(request, response, id, refused); return }
    readBody(request, PROXY_BODY_LIMIT, (body, cut) => {
      if (cut !== undefined) { this.refuse(request, response, id, cut); return }
      if (body === undefined && this.answeredAtOnce(request, response, target, id)) return
      this.proxied(request, response, target, { id, body }).catch((error: unknown) => {
        deps.log.error({ reqId: id, err: error }, 'request failed unexpectedly')
        if (!response.headersSent) sendDetail(request, response, this.contextOf(id), 500, { detail: `${FAILURE}: ${sentenceFor(error, id)}` })
        else response.destroy()
      })
    })
  }

  /**
   * The PROXY_PORT listener's handler: the data plane alone. Anything else is 404
   * (the admin API is not served there), a CORS preflight is answered here.
   */
  servePort (request: IncomingMessage, response: ServerResponse): void {
    const { cors } = this.deps
    const target = dataPlaneTarget(request, false)
    if (target !== undefined && !(cors !== null && isPreflight(request))) { this.serve(request, response, target); return }
    const id = requestIdOf(request)
    this.account(request, response, target?.route ?? 'unmatched', id, performance.now(), false)
    if (target === undefined) sendDetail(request, response, this.contextOf(id), 404, { detail: 'Not Found' })
    else sendPreflight(request, response, { ...this.contextOf(id), cors: cors as CorsOrigins })
  }

  /** The stages after admission, for a request Fastify admitted (its id and parsed body). */
  async handle (request: IncomingMessage, response: ServerResponse, target: DataPlaneTarget, body: Buffer | undefined): Promise<void> {
    await this.proxied(request, response, target, { id: requestIdGiven(request) ?? requestIdOf(request), body })
  }

  private contextOf (id: string): ReplyContext {
    return { id, cors: this.deps.cors, closing: this.deps.closing() }
  }

  /** After admission: the pool, its pipeline, the answer. */
  private async proxied (request: IncomingMessage, response: ServerResponse, target: DataPlaneTarget, admitted: Admitted): Promise<void> {
    const { id } = admitted
    const requestLog = new RequestLog(this.deps.log, id)
    const waits = new ClientWaits(request, response)
    let answer: ServedAnswer
    let poolId: number | undefined
    try {
      poolId = target.poolId ?? await this.deps.poolNames.byName(target.name as string)
      if (poolId === undefined) {
        sendDetail(request, response, this.contextOf(id), 404, { detail: `Pool '${target.name as string}' not found` })
        return
      }
      answer = await this.deps.pipelines.forward(poolId, {
        method: request.method as string,
        url: proxyUrlOf(request.url as string, target, poolId),
        headers: request.headers,
        body: admitted.body,
        peer: request.socket.remoteAddress ?? '',
        protocol: this.deps.client.protocol(request),
        requestId: id,
        log: requestLog,
        gone: () => waits.gone(),
        get signal () { return waits.signal() }
      })
    } catch (error) {
      this.answerError(request, response, this.contextOf(id), error)
      return
    } finally {
      waits.end()
    }
    sendServed(request, response, this.contextOf(id), poolId, answer, requestLog)
  }

  /** Answers an error thrown while the request was proxied, as the app's error handler did. */
  private answerError (request: IncomingMessage, response: ServerResponse, context: ReplyContext, error: unknown): void {
    if (error instanceof UnsafePathError) { sendDetail(request, response, context, 400, { detail: error.message }); return }
    if (error instanceof MethodNotAllowedError) { sendDetail(request, response, context, 405, { detail: error.message }, { allow: ALLOWED_METHODS }); return }
    if (error instanceof DomainError) { sendDetail(request, response, context, error.status, { detail: error.message, ...error.extra }); return }
    this.deps.log.error({ reqId: context.id, err: error }, 'request failed unexpectedly')
    sendDetail(request, response, context, 500, { detail: `${FAILURE}: ${sentenceFor(error, context.id)}` })
  }

  /** Answers at once, with no await, what the pool's pipeline can (a fresh HIT of the memory store); false when it cannot. */
  private answeredAtOnce (request: IncomingMessage, response: ServerResponse, target: DataPlaneTarget, id: string): boolean {
    const poolId = target.poolId ?? this.deps.poolNames.now(target.name as string)
    if (poolId === undefined) return false
    const url = proxyUrlOf(request.url as string, target, poolId)
    const answer = this.deps.pipelines.now(poolId, { method: request.method as string, url, headers: request.headers })
    if (answer === undefined) return false
    sendServed(request, response, this.contextOf(id), poolId, answer, new RequestLog(this.deps.log, id))
    return true
  }

  /** A refusal at admission, answered (and a body cut off logged as routine). */
  private refuse (request: IncomingMessage, response: ServerResponse, id: string, refused: Refused): void {
    if (refused === BODY_CUT) this.deps.log.info({ reqId: id, code: 'ECONNRESET' }, 'the connection closed before the request body arrived')
    const headers = refused.close === true ? { ...refused.headers, connection: 'close' } : refused.headers
    sendDetail(request, response, this.contextOf(id), refused.status, { detail: refused.detail }, headers)
  }

  /**
   * Counts and logs the request once its answer is done, as Fastify did: an answer
   * that never finished (the client left, a stream broke) is neither counted nor
   * "completed"; one cut while streaming says so.
   */
  private account (request: IncomingMessage, response: ServerResponse, route: string, id: string, started: number, logging: boolean): void {
    const { log, metrics } = this.deps
    response.once('close', () => {
      if (!response.writableFinished) {
        if (logging && response.headersSent) log.info({ reqId: id, res: { statusCode: response.statusCode } }, 'stream closed prematurely')
        return
      }
      const ms = performance.now() - started
      metrics.observeRequest(request.method as string, route, response.statusCode, ms / 1000)
      if (logging) log.info({ reqId: id, res: { statusCode: response.statusCode }, responseTime: ms }, 'request completed')
    })
  }
}

/**
 * Whether the client of one request has left, for the stages that wait (max_wait_ms,
 * another request's answer): its signal is made only when something waits (a cache
 * hit never does) and aborts when the client leaves before its answer starts.
 */
class ClientWaits {
  private left: AbortController | undefined
  private onClose: (() => void) | undefined

  constructor (private readonly request: IncomingMessage, private readonly response: ServerResponse) {}

  gone (): boolean {
    return this.left?.signal.aborted === true || (!this.response.headersSent && (this.response.destroyed || this.request.socket.destroyed))
  }

  signal (): AbortSignal {
    if (this.left === undefined) {
      this.left = new AbortController()
      if (this.response.destroyed || this.request.socket.destroyed) this.left.abort()
      else {
        const left = this.left
        this.onClose = () => { if (!this.response.headersSent) left.abort() }
        this.response.once('close', this.onClose)
      }
    }
    return this.left.signal
  }

  /** The request's answer is decided: nothing waits any more. */
  end (): void {
    if (this.onClose !== undefined) this.response.removeListener('close', this.onClose)
  }
}

/** Builds the data plane (app.ts). */
export function createDataPlane (deps: DataPlaneDeps): DataPlane {
  return new DataPlane(deps)
}
