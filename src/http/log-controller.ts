/**
 * Fastify's log lines for the request lifecycle, with one change: a client that
 * leaves while a streamed answer (a proxied one) is still being sent is routine,
 * and Fastify would log each at warn with a stack trace — so any client could fill
 * the log by hanging up. That case is logged at info, as Fastify already does for a
 * stream closed prematurely; a stream that fails on its own stays a warning.
 */
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify'

/** The error undici gives a response body destroyed because the client went away. */
const ABORTED_BY_US = 'UND_ERR_ABORTED'

export class ServiceLogController extends LogController {
  override streamError (error: Error & { code?: string }, request: FastifyRequest, reply: FastifyReply, metadata?: Record<string, unknown>): void {
    if (error.code === ABORTED_BY_US && reply.raw.destroyed) {
      if (!this.isLogDisabled(request)) reply.log.info({ res: reply }, 'client closed the connection during a streamed answer')
      return
    }
    super.streamError(error, request, reply, metadata)
  }
}
