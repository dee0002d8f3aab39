/**
 * The serving port, bound before the database is opened: a start on a port already
 * in use stops there (one line naming PORT and HOST, exit code 1), having migrated
 * nothing and applied no CONFIG_FILE. Until the service is ready, a request on the
 * port waits: it is handed to the service once it serves (with WORKERS, on a
 * connection closed after its answer, so that the client reconnects to whichever
 * worker it is dealt), or answered 503 `{"detail":"Starting"}` with Retry-After once
 * it has waited HOLD_MS. An upgrade (a WebSocket) is answered 503 Starting at once.
 * Nothing claims to be ready before it is (docs/decisions.md). The server is Fastify's
 * (its serverFactory), with the connection limits Fastify would have given its own.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import type { FastifyServerFactory } from 'fastify'
import type { Config } from './config.js'
import { connectionOptions, rawAnswer } from './http/connections.js'
import { REQUEST_ID_HEADER, requestIdOf } from './http/request-id.js'

/** How long a request may wait for the service to start before it is answered 503 Starting. */
export const HOLD_MS = 10_000
/** What a request that waited too long is answered; seconds a client should wait before asking again. */
const STARTING_BODY = JSON.stringify({ detail: 'Starting' })
const RETRY_AFTER_S = 1

export interface ServingPort {
  /** Binds HOST:PORT; rejects with the one line to print, naming the setting to change. */
  listen(): Promise<void>
  /** Fastify's serverFactory: this port's server, its requests held until `serve`. */
  readonly serverFactory: FastifyServerFactory
  /**
   * Hands the requests that wait, and every one from now on, to the service. With
   * `dropIdle` (WORKERS), the connections that reached this process while it started
   * are closed once answered, or at once when they asked nothing, so that they
   * reconnect and are dealt out like any new connection.
   */
  serve(options?: { dropIdle?: boolean }): void
  /** How many requests wait for `serve`. */
  waiting(): number
  /** The URL it serves at (after listen). */
  url(): string
}

/** A request that waits for the service, and what answers it 503 if it waits too long. */
interface Held {
  readonly request: IncomingMessage
  readonly response: ServerResponse
  readonly timer: NodeJS.Timeout
}

const startingHeaders = (request: IncomingMessage) => ({
  'content-type': 'application/json; charset=utf-8',
  'content-length': String(Buffer.byteLength(STARTING_BODY)),
  'retry-after': String(RETRY_AFTER_S),
  connection: 'close',
  [REQUEST_ID_HEADER]: requestIdOf(request)
})

function answerStarting (request: IncomingMessage, response: ServerResponse): void {
  response.writeHead(503, startingHeaders(request))
  response.end(STARTING_BODY)
}

/** An upgrade (a WebSocket) asked for while starting: the same answer, written on its socket. */
function refuseUpgrade (request: IncomingMessage, socket: Duplex): void {
  socket.end(rawAnswer(503, startingHeaders(request), STARTING_BODY))
}

/** `host:port` as a person would type it (an IPv6 address in brackets). */
const hostPort = (host: string, port: number) => `${host.includes(':') ? `[${host}]` : host}:${port}`

/** Which address a port binds, and the settings that name it. */
export interface Listener {
  readonly host: string
  readonly port: number
  readonly hostSetting: 'HOST' | 'PROXY_HOST'
  readonly portSetting: 'PORT' | 'PROXY_PORT'
}

/** The one line for a failed bind, naming what to change. */
export function describeListenError (
  error: Error & { code?: string }, host: string, port: number, { hostSetting, portSetting }: Pick<Listener, 'hostSetting' | 'portSetting'> = { hostSetting: 'HOST', portSetting: 'PORT' }
): string {
  const where = hostPort(host, port)
  switch (error.code) {
    case 'EADDRINUSE': return `${where} is already in use; set ${portSetting} (or ${hostSetting}) to another`
    case 'EACCES': return `${where}: permission denied (ports below 1024 need privileges); set ${portSetting} (or ${hostSetting}) to another`
    case 'EADDRNOTAVAIL': return `${host} is not an address of this machine; set ${hostSetting} to another`
    case 'ENOTFOUND':
    case 'EAI_AGAIN': return `${hostSetting} '${host}' does not resolve to an address; set ${hostSetting} to another`
    default: return `cannot listen on ${where}: ${error.message}`
  }
}

/**
 * The port's server, created with the service's connection limits; not bound yet.
 * Until `serve`, its requests wait and its upgrades are refused, whatever listeners
 * the service has added to it meanwhile (the WebSocket plugin's upgrades).
 */
export function servingPort (
  config: Config, { holdMs = HOLD_MS, listener = { host: config.host, port: config.port, hostSetting: 'HOST', portSetting: 'PORT' } }: { holdMs?: number, listener?: Listener } = {}
): ServingPort {
  const options = connectionOptions(config)
  const server: Server = createServer(options.http)
  server.keepAliveTimeout = options.keepAliveTimeout ?? server.keepAliveTimeout
  server.requestTimeout = options.requestTimeout ?? server.requestTimeout
  const held = new Set<Held>()
  const hold = (request: IncomingMessage, response: ServerResponse): void => {
    const waiting: Held = {
      request,
      response,
      timer: setTimeout(() => {
        held.delete(waiting)
        answerStarting(request, response)
      }, holdMs)
    }
    held.add(waiting)
    // A client that gave up is not answered later.
    response.once('close', () => {
      clearTimeout(waiting.timer)
      held.delete(waiting)
    })
  }
  const emit = server.emit
  server.emit = function (this: Server, event: string | symbol, ...args: unknown[]): boolean {
    if (event === 'request') hold(args[0] as IncomingMessage, args[1] as ServerResponse)
    else if (event === 'upgrade') refuseUpgrade(args[0] as IncomingMessage, args[1] as Duplex)
    else return Reflect.apply(emit, this, [event, ...args]) as boolean
    return true
  } as Server['emit']
  let built = false

  return {
    listen: async () => {
      await new Promise<void>((resolve, reject) => {
        const failed = (error: Error & { code?: string }) => { reject(new Error(describeListenError(error, listener.host, listener.port, listener))) }
        server.once('error', failed)
        server.listen({ host: listener.host, port: listener.port }, () => {
          server.off('error', failed)
          resolve()
        })
      })
    },
    serverFactory: (handler) => {
      built = true
      server.on('request', handler)
      return server
    },
    serve: ({ dropIdle = false } = {}) => {
      if (!built) throw new Error('serve() before the service was built on this port')
      // The server's own emit again: from now on, nothing stands between a request and the service.
      delete (server as { emit?: unknown }).emit
      for (const waiting of held) {
        clearTimeout(waiting.timer)
        if (dropIdle) waiting.response.shouldKeepAlive = false
        server.emit('request', waiting.request, waiting.response)
      }
      held.clear()
      if (dropIdle) server.closeIdleConnections()
    },
    waiting: () => held.size,
    url: () => {
      const address = server.address()
      return typeof address === 'object' && address !== null ? `http://${hostPort(address.address, address.port)}` : String(address)
    }
  }
}
