/**
 * Scripted WebSocket providers on loopback (the `ws` package on node:http) for the tests
 * of streams through a pool: an exchange-style ticker and an echo. Each records what it
 * saw of every connection (path, headers, subprotocols, messages, pings, how it closed)
 * and lets a test break it on purpose: drop every connection as a crash would, close them
 * with a code, refuse upgrades with an HTTP status, stop answering pings.
 */
import { createServer, STATUS_CODES, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { WebSocketServer, type WebSocket } from 'ws'

/** What an upstream saw of one accepted connection. */
export interface WsConnection {
  readonly path: string
  readonly headers: IncomingHttpHeaders
  /** The subprotocols the client offered, in its order, and the one accepted ('' for none). */
  readonly protocolsAsked: string[]
  readonly protocol: string
  /** The client's messages: text as strings, binary as Buffers. */
  readonly messages: Array<string | Buffer>
  pings: number
  /** How it closed, once it has: 1006 when no close frame came. */
  closed?: { code: number, reason: string }
}

export interface WsUpstreamOptions {
  /** The subprotocols accepted: the first the client offers of these is chosen. */
  protocols?: string[]
}

/** A WebSocket server on loopback, what it saw, and the ways to break it. */
export interface WsUpstream {
  /** ws://127.0.0.1:port (no path). */
  readonly url: string
  readonly connections: WsConnection[]
  /** Upgrades answered with an HTTP status since refuseUpgrades. */
  readonly refused: number
  /** Destroys every connection's socket: no close frame, the client sees 1006. */
  dropAll: () => void
  /** Closes every connection with a close frame. */
  closeAll: (code?: number, reason?: string) => void
  /** Answers every later upgrade with `status` and no connection, until acceptUpgrades. */
  refuseUpgrades: (status?: number) => void
  acceptUpgrades: () => void
  /** Leaves every later ping unanswered (ws answers them itself unless told not to). */
  stopPonging: () => void
  /** Sends every open connection one text message of exactly `size` bytes (a JSON object, `size` ≥ 10). */
  sendRaw: (size: number) => void
  close: () => Promise<void>
}

/** What a scripted upstream does with its connections, beyond what every one records. */
interface Behaviour {
  connected: (socket: WebSocket, seen: WsConnection) => void
  message: (socket: WebSocket, data: Buffer, binary: boolean) => void
}

async function wsUpstream (options: WsUpstreamOptions, behave: Behaviour): Promise<WsUpstream> {
  const accepted = options.protocols ?? []
  let refusing: number | undefined
  let refused = 0
  let ponging = true
  const connections: WsConnection[] = []
  const server = createServer((_req, res) => { res.writeHead(426, { connection: 'close' }).end() })
  const wss = new WebSocketServer({
    noServer: true,
    autoPong: false,
    handleProtocols: (asked) => [...asked].find((protocol) => accepted.includes(protocol)) ?? false
  })
  server.on('upgrade', (req, socket, head) => {
    if (refusing !== undefined) {
      refused++
      socket.end(`HTTP/1.1 ${refusing} ${STATUS_CODES[refusing] ?? ''}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`)
      return
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const asked = req.headers['sec-websocket-protocol']
      const seen: WsConnection = {
        path: req.url ?? '/',
        headers: req.headers,
        protocolsAsked: asked === undefined ? [] : asked.split(',').map((p) => p.trim()),
        protocol: ws.protocol,
        messages: [],
        pings: 0
      }
      connections.push(seen)
      ws.on('ping', (data) => { seen.pings++; if (ponging) ws.pong(data) })
      ws.on('close', (code, reason) => { seen.closed = { code, reason: reason.toString() } })
      ws.on('message', (data: Buffer, binary) => {
        seen.messages.push(binary ? data : data.toString())
        behave.message(ws, data, binary)
      })
      behave.connected(ws, seen)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections,
    get refused () { return refused },
    dropAll: () => { for (const ws of wss.clients) ws.terminate() },
    closeAll: (code = 1000, reason = '') => { for (const ws of wss.clients) ws.close(code, reason) },
    refuseUpgrades: (status = 503) => { refusing = status },
    acceptUpgrades: () => { refusing = undefined },
    stopPonging: () => { ponging = false },
    sendRaw: (size) => {
      if (size < 10) throw new RangeError('sendRaw sends a JSON object: 10 bytes at least')
      const text = `{"pad":"${'x'.repeat(size - 10)}"}`
      for (const ws of wss.clients) ws.send(text)
    },
    close: async () => {
      for (const ws of wss.clients) ws.terminate()
      wss.close()
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  }
}

export interface TickerOptions extends WsUpstreamOptions {
  /** Milliseconds between ticks; 0 ticks only when the test calls tick(). Default 20. */
  intervalMs?: number
}

/** A ticker: each tick sends every connection one message per symbol it streams. */
export interface TickerUpstream extends WsUpstream {
  tick: () => void
}

/** The symbol a path such as `/ws/btcusdt@ticker` streams from the start. */
const PATH_FORM = /^\/ws\/([^/@?]+)@ticker$/

/**
 * An exchange-style ticker. `{"op":"subscribe","channel":"ticker","symbol":S}` answers
 * `{"event":"subscribed","channel":"ticker","symbol":S}`, after which every tick brings
 * `{"channel":"ticker","symbol":S,"seq":n,"price":100+n}`, n counting from 1 for each
 * symbol of each connection; "unsubscribe" stops it; anything else answers an error
 * event. A connection to `/ws/<symbol>@ticker` streams that symbol unasked.
 */
export async function tickerUpstream (options: TickerOptions = {}): Promise<TickerUpstream> {
  /** Each open connection's symbols, with the last seq sent. */
  const streams = new Map<WebSocket, Map<string, number>>()
  const answer = (ws: WebSocket, body: object) => { ws.send(JSON.stringify(body)) }
  const up = await wsUpstream(options, {
    connected (ws, seen) {
      const symbols = new Map<string, number>()
      const symbol = PATH_FORM.exec(seen.path)?.[1]
      if (symbol !== undefined) symbols.set(decodeURIComponent(symbol), 0)
      streams.set(ws, symbols)
      ws.on('close', () => streams.delete(ws))
    },
    message (ws, data, binary) {
      const symbols = streams.get(ws)
      let request: { op?: unknown, channel?: unknown, symbol?: unknown } = {}
      try { request = binary ? {} : JSON.parse(data.toString()) ?? {} } catch {}
      const { op, channel, symbol } = request
      if (symbols === undefined || channel !== 'ticker' || typeof symbol !== 'string' || (op !== 'subscribe' && op !== 'unsubscribe')) {
        answer(ws, { event: 'error', message: 'expected {"op":"subscribe"|"unsubscribe","channel":"ticker","symbol":"…"}' })
      } else if (op === 'subscribe') {
        if (!symbols.has(symbol)) symbols.set(symbol, 0)
        answer(ws, { event: 'subscribed', channel, symbol })
      } else {
        symbols.delete(symbol)
        answer(ws, { event: 'unsubscribed', channel, symbol })
      }
    }
  })
  const tick = () => {
    for (const [ws, symbols] of streams) {
      for (const [symbol, last] of symbols) {
        symbols.set(symbol, last + 1)
        answer(ws, { channel: 'ticker', symbol, seq: last + 1, price: 100 + last + 1 })
      }
    }
  }
  const intervalMs = options.intervalMs ?? 20
  const timer = intervalMs > 0 ? setInterval(tick, intervalMs) : undefined
  return {
    ...up,
    get refused () { return up.refused },
    tick,
    close: async () => { clearInterval(timer); await up.close() }
  }
}

/** Echoes every message back as it came (text as text, binary as binary). */
export async function echoUpstream (options: WsUpstreamOptions = {}): Promise<WsUpstream> {
  return await wsUpstream(options, {
    connected: () => {},
    message: (ws, data, binary) => { ws.send(data, { binary }) }
  })
}
