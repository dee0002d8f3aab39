/**
 * The upstream of the proxy benchmark: a plain Node HTTP server answering every
 * request with the same 1 KiB JSON body, as its own process.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

const body = JSON.stringify({ items: Array.from({ length: 18 }, (_, i) => ({ id: i, name: `item-${i}`, value: i * 1.5 })) }).padEnd(1024, ' ')
const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
  res.end(body)
})
server.keepAliveTimeout = 60_000
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`Server listening at http://127.0.0.1:${(server.address() as AddressInfo).port}\n`)
})
process.once('SIGTERM', () => { server.close(() => process.exit(0)); server.closeAllConnections() })
