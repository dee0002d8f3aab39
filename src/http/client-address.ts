/**
 * The client's address and protocol of a raw request as Fastify's `request.ip` and
 * `request.protocol` give them under TRUST_PROXY (config.ts `trustProxyOption`), for
 * the data plane, which serves outside Fastify's lifecycle (proxy/data-plane.ts):
 * the same trust rules (@fastify/proxy-addr, Fastify's own), so the failure limit,
 * the logs and `X-Forwarded-Proto` see one client whichever side served it.
 */
import type { IncomingMessage } from 'node:http'
import proxyAddr from '@fastify/proxy-addr'

type TrustOption = boolean | string[] | ((address: string, hop: number) => boolean)

export interface ClientAddress {
  /** The client's address: the peer, or behind a trusted front door the client it reported. */
  ip(request: IncomingMessage): string
  /** `https` or `http`: a trusted front door's X-Forwarded-Proto (its last entry), else the socket's own. */
  protocol(request: IncomingMessage): string
}

/** What Fastify makes of its `trustProxy` option (a number is given as a function by config.ts). */
function trustFunction (option: TrustOption): (address: string, hop: number) => boolean {
  if (typeof option === 'function') return option
  if (option === true) return () => true
  if (option === false) return () => false
  return proxyAddr.compile(option)
}

/** The last entry of a header that may be a list (`a, b` → `b`). */
function lastEntry (value: string | string[]): string {
  const text = Array.isArray(value) ? value[value.length - 1] ?? '' : value
  const comma = text.lastIndexOf(',')
  return (comma === -1 ? text : text.slice(comma + 1)).trim()
}

/** The client address rules for the trust option `option`. */
export function clientAddress (option: TrustOption): ClientAddress {
  const trusted = trustFunction(option)
  const trusting = option !== false
  return {
    ip: (request) => trusting ? proxyAddr(request, trusted) : request.socket.remoteAddress ?? '',
    protocol: (request) => {
      const forwarded = request.headers['x-forwarded-proto']
      const socket = request.socket as IncomingMessage['socket'] & { encrypted?: boolean }
      if (forwarded !== undefined && forwarded.length > 0 && trusting && trusted(socket.remoteAddress ?? '', 0)) return lastEntry(forwarded)
      return socket.encrypted === true ? 'https' : 'http'
    }
  }
}
