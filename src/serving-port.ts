/**
 * The serving port, bound before the database is opened: a start on a port already
 * in use stops there (one line naming PORT and HOST, exit code 1), having migrated
 * nothing and applied no CONFIG_FILE. Until the service is ready, every request on
 * the port is answered 503 `{"detail":"Starting"}` with Retry-After and
 * `Connection: close`, so a readiness probe is told the truth at once and no client
 * keeps a connection to a process that is not serving yet (docs/decisions.md); so is
 * an upgrade (a WebSocket). The server is Fastify's (its serverFactory), with the
 * connection limits Fastify would have given a server of its own.
 */
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import type { FastifyServerFactory } from 'fastify'
import type { Config } from './config.js'
import { connectionOptions } from './http/connections.js'
import { REQUEST_ID_HEADER, requestIdOf } from './http/request-id.js'

/** What a starting server answers; seconds a client should wait before asking again. */
const STARTING_BODY = JSON.stringify({ detail: 'Starting' })
const RETRY_AFTER_S = 1

export interface ServingPort {
  /** Binds HOST:PORT; rejects with the one line to print, naming the setting to change. */
  listen(): Promise<void>
  /** Fastify's serverFactory: this port's server, Fastify's handler kept until `serve`. */
  readonly serverFactory: FastifyServerFactory
  /**
   * Hands every request from now on to the service. With `dropIdle`, connections
   * opened while starting that have asked nothing yet are closed, so that they
   * reconnect and are dealt out like any new connection (WORKERS).
   */
  serve(options?: { dropIdle?: boolean }): void
  /** The URL it serves at (after listen). */
  url(): string
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
  const head = Object.entries(startingHeaders(request)).map(([name, value]) => `${name}: ${value}\r\n`).join('')
  socket.end(`HTTP/1.1 503 ${STATUS_CODES[503]}\r\n${head}\r\n${STARTING_BODY}`)
}

/** `host:port` as a person would type it (an IPv6 address in brackets). */
const hostPort = (host: string, port: number) => `${host.includes(':') ? `[${host}]` : host}:${port}`

/** The one line for a failed bind, naming what to change. */
export function describeListenError (error: Error & { code?: string }, host: string, port: number): string {
  const where = hostPort(host, port)
  switch (error.code) {
    case 'EADDRINUSE': return `${where} is already in use; set PORT (or HOST) to another`
    case 'EACCES': return `${where}: permission denied (ports below 1024 need privileges); set PORT (or HOST) to another`
    case 'EADDRNOTAVAIL': return `${host} is not an address of this machine; set HOST to another`
    case 'ENOTFOUND':
    case 'EAI_AGAIN': return `HOST '${host}' does not resolve to an address; set HOST to another`
    default: return `cannot listen on ${where}: ${error.message}`
  }
}

/**
 * The port's server, created with the service's connection limits; not bound yet.
 * Until `serve`, its requests and upgrades are answered 503 Starting, whatever
 * listeners the service has added to it meanwhile (the WebSocket plugin's upgrades).
 */
export function servingPort (config: Config): ServingPort {
  const options = connectionOptions(config)
  const server: Server = createServer(options.http)
  server.keepAliveTimeout = options.keepAliveTimeout ?? server.keepAliveTimeout
  server.requestTimeout = options.requestTimeout ?? server.requestTimeout
  const emit = server.emit
  server.emit = function (this: Server, event: string | symbol, ...args: unknown[]): boolean {
    if (event === 'request') answerStarting(args[0] as IncomingMessage, args[1] as ServerResponse)
    else if (event === 'upgrade') refuseUpgrade(args[0] as IncomingMessage, args[1] as Duplex)
    else return Reflect.apply(emit, this, [event, ...args]) as boolean
    return true
  } as Server['emit']
  let built = false

  return {
    listen: async () => {
      await new Promise<void>((resolve, reject) => {
        const failed = (error: Error & { code?: string }) => { reject(new Error(describeListenError(error, config.host, config.port))) }
        server.once('error', failed)
        server.listen({ host: config.host, port: config.port }, () => {
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
      if (dropIdle) server.closeIdleConnections()
    },
    url: () => {
      const address = server.address()
      return typeof address === 'object' && address !== null ? `http://${hostPort(address.address, address.port)}` : String(address)
    }
  }
}
