/**
 * The limit of the streams benchmark's relay (streams.ts): the least a WebSocket relay written
 * with `ws` in Node does, as its own process like the service. Each client connection gets its own
 * upstream connection to UPSTREAM_URL with the client's path; frames pass both ways as they came
 * (what the client sends before the upstream is open waits for it); either side's close closes the
 * other. No pool, no choice, no failover, no backpressure, no counting: what sourcepool costs over
 * this is its own.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import WebSocket, { WebSocketServer } from 'ws'

const upstream = (process.env.UPSTREAM_URL ?? '').replace(/^http/, 'ws')
const server = createServer((_req, res) => { res.writeHead(426, { connection: 'close' }).end() })
const wss = new WebSocketServer({ server, perMessageDeflate: false, clientTracking: false })
wss.on('connection', (client, req) => {
  const up = new WebSocket(`${upstream}${req.url ?? '/'}`, { perMessageDeflate: false })
  const early: Array<[Buffer, boolean]> = []
  client.on('message', (data: Buffer, binary) => {
    if (up.readyState === up.OPEN) up.send(data, { binary })
    else early.push([data, binary])
  })
  up.on('open', () => { for (const [data, binary] of early.splice(0)) up.send(data, { binary }) })
  up.on('message', (data: Buffer, binary) => { client.send(data, { binary }) })
  client.on('close', () => { up.terminate() })
  up.on('close', () => { client.close() })
  client.on('error', () => {})
  up.on('error', () => { client.terminate() })
})
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`Server listening at http://127.0.0.1:${(server.address() as AddressInfo).port}\n`)
})
// Upgraded sockets would hold a graceful close open: the bench is done with this process.
process.once('SIGTERM', () => { process.exit(0) })
