/**
 * The upstream of the streams benchmark (streams.ts): a WebSocket server (`ws` on node:http) as
 * its own process, so the load generator, the service and the upstream never share an event loop.
 * A connection to `/firehose` is sent the same 100-byte text message over and over, as fast as the
 * reader takes them: a batch of messages, and the next batch once the last one was handed to the
 * kernel and the event loop has run, so a reader that stops stops the sending; `?delay_ms=N` starts
 * it N ms after the connection opened (so that clients sharing it can all join first). Any other
 * path echoes each message as it came (text as text, binary as binary). Nothing is recorded: a
 * bench's upstream must not grow.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { WebSocketServer, type WebSocket } from 'ws'

/** The firehose's message: 100 bytes of text. */
const FIREHOSE_MESSAGE = `{"channel":"trades","symbol":"BTC-USD","price":"64000.10","size":"0.0100","side":"buy","pad":"${'x'.repeat(4)}"}`
/** Messages sent before waiting for the kernel to take them. */
const BATCH = 32

/** Sends the firehose to `ws` until it closes, no faster than it is read. */
function pump (ws: WebSocket): void {
  if (ws.readyState !== ws.OPEN) return
  for (let i = 1; i < BATCH; i++) ws.send(FIREHOSE_MESSAGE)
  // The next batch after the event loop's I/O: a write that completes at once calls back in the same tick,
  // and pumping from there would starve every other socket (new connections' handshakes included).
  ws.send(FIREHOSE_MESSAGE, (error) => { if (error === undefined || error === null) setImmediate(pump, ws) })
}

const server = createServer((_req, res) => { res.writeHead(426, { connection: 'close' }).end() })
const wss = new WebSocketServer({ server, perMessageDeflate: false, clientTracking: false })
wss.on('connection', (ws, req) => {
  ws.on('error', () => {})
  const url = new URL(req.url ?? '/', 'http://upstream')
  if (url.pathname === '/firehose') {
    setTimeout(pump, Number(url.searchParams.get('delay_ms') ?? 0), ws)
    return
  }
  ws.on('message', (data: Buffer, binary) => { ws.send(data, { binary }) })
})
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`Server listening at http://127.0.0.1:${(server.address() as AddressInfo).port}\n`)
})
// Upgraded sockets would hold a graceful close open: the bench is done with this process.
process.once('SIGTERM', () => { process.exit(0) })
