/**
 * Unsolicited `100 Continue` from a provider, skipped as every other interim
 * answer is. RFC 9110 §15.2: a client must parse one or more 1xx answers before
 * the final one, even one it did not expect, and may ignore them; some servers
 * send `100 Continue` to every request with a body. undici's HTTP/1.1 client skips
 * 102 and 103 but destroys the connection on a 100 (it never sends `Expect`, so it
 * treats one as a broken server), which turned a working provider's answer into a
 * connect error charged to it.
 *
 * Where a response starts is known only to the HTTP parser (llhttp, under undici):
 * it frames each answer (Content-Length, chunked, HEAD, 204/304, 1xx, close),
 * across TCP segments and keep-alive reuse, and calls `onHeadersComplete` once per
 * answer with its status. So the skip is done there and nowhere else: each
 * connection this agent opens gets its parser's `onHeadersComplete` wrapped (its
 * own property, other undici users are untouched) so that a 100 reaches undici as
 * STAND_IN, a 1xx code no one has registered, which undici handles as it handles
 * 102: no body, the headers timeout still running, and the next answer parsed as
 * the real one. Nothing is re-sent (the request went once, and its body with it),
 * and bytes inside a body are never looked at. The hook uses two undici internals
 * (the `kParser` symbol on the socket and the parser's `onHeadersComplete`); if
 * either is missing (an undici that changed them), the connection is left as it
 * is, and engine.test.ts fails.
 */
import { createRequire } from 'node:module'
import type { Socket } from 'node:net'
import { buildConnector } from 'undici'

/** The symbol undici keeps a connection's HTTP/1.1 parser under, on its socket. */
const kParser: unknown = (createRequire(import.meta.url)('undici/lib/core/symbols.js') as { kParser?: unknown }).kParser

/** An unassigned 1xx code (RFC 9110 §15.2 registers 100–103): what undici sees in place of a 100. */
export const STAND_IN = 199

/** The part of undici's HTTP/1.1 parser the hook wraps: called once per answer, when its headers end. */
type HeadersComplete = (this: unknown, statusCode: number, upgrade: boolean, shouldKeepAlive: boolean) => number

/**
 * Wraps the parser of an HTTP/1.1 connection undici has just taken up so a
 * `100 Continue` is skipped as an interim answer. False when the socket has no
 * parser this hook knows (a connection undici dropped at once, or an undici whose
 * internals changed).
 */
export function skipContinue (socket: object): boolean {
  if (typeof kParser !== 'symbol') return false
  const parser = (socket as Record<symbol, { onHeadersComplete?: HeadersComplete } | undefined>)[kParser]
  const original = parser?.onHeadersComplete
  if (parser === undefined || typeof original !== 'function') return false
  parser.onHeadersComplete = function (statusCode, upgrade, shouldKeepAlive) {
    return original.call(this, statusCode === 100 ? STAND_IN : statusCode, upgrade, shouldKeepAlive)
  }
  return true
}

/**
 * undici's own connector (as an Agent builds it with no `connect` option) whose
 * connections skip `100 Continue`. undici takes up the socket (its parser made)
 * inside the callback, before a byte is read, so the hook is in place when the
 * first answer arrives.
 */
export function continueSkippingConnector (options: buildConnector.BuildOptions = {}): buildConnector.connector {
  const connect = buildConnector(options)
  return (opts, callback) => {
    connect(opts, (error, socket) => {
      if (error !== null) {
        callback(error, null)
        return
      }
      callback(null, socket)
      skipContinue(socket as Socket)
    })
  }
}
