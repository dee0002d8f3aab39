/**
 * One demo provider: a small market-data API on node:http, so that sourcepool can be
 * tried (and its README run) on a machine without internet or API keys. It answers
 * `/v1/prices?symbol=BTC` with a price that moves, the headers a real provider sends
 * (`Cache-Control: max-age`, `X-RateLimit-*`), and `/health`; `POST /control` makes it
 * fail, answer slowly or rate-limit, as real providers do. It knows nothing of the
 * service: it is what a pool's member would be.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'

/** How a demo provider misbehaves, set by `POST /control`: what the body leaves out is off. */
export interface DemoMode {
  /** Answer 503 to everything but `/control`. */
  fail: boolean
  /** Wait this many ms more before answering (0–60,000). */
  slow_ms: number
  /** Answer 429 with `Retry-After: 10`. */
  rate_limited: boolean
}

export interface DemoProviderOptions {
  readonly name: string
  /** How long every answer takes, in ms, as a real API's round trip. */
  readonly latencyMs: number
  /** Requests to `/v1/…` per minute before it answers 429. */
  readonly limitPerMinute: number
}

/** Seconds a provider's prices may be kept (its `Cache-Control: max-age`). */
export const PRICE_MAX_AGE_S = 30
const SYMBOLS: Readonly<Record<string, number>> = { BTC: 64_000, ETH: 3_100, SOL: 150 }
const WINDOW_MS = 60_000
const OFF: DemoMode = { fail: false, slow_ms: 0, rate_limited: false }

/** Writes `body` as JSON with `status` and `headers`. */
function send (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers })
  res.end(JSON.stringify(body))
}

/** A price for `symbol` now: a slow swing of ±1 % over ten minutes, each provider a little off the others, and a little noise. */
function priceOf (base: number, name: string, now: number): number {
  const offset = [...name].reduce((sum, c) => sum + c.charCodeAt(0), 0) % 7 / 10_000
  const swing = 0.01 * Math.sin(now / 600_000 * 2 * Math.PI)
  return Math.round(base * (1 + swing + offset + (Math.random() - 0.5) / 2_000) * 100) / 100
}

/** The mode a `POST /control` body asks for, or the sentence saying what is wrong with it. */
export function parseMode (text: string): DemoMode | string {
  let body: unknown
  try {
    body = text.trim() === '' ? {} : JSON.parse(text)
  } catch {
    return 'the body must be JSON, such as {"fail": true}'
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return 'the body must be a JSON object, such as {"fail": true}'
  const { fail = false, slow_ms: slow = 0, rate_limited: limited = false, ...rest } = body as Record<string, unknown>
  const unknown = Object.keys(rest)
  if (unknown.length > 0) return `unknown field ${unknown.map((k) => `'${k}'`).join(', ')}: the fields are fail, slow_ms and rate_limited`
  if (typeof fail !== 'boolean' || typeof limited !== 'boolean') return 'fail and rate_limited are true or false'
  if (!Number.isInteger(slow) || (slow as number) < 0 || (slow as number) > 60_000) return 'slow_ms is a whole number of ms, 0–60000'
  return { fail, slow_ms: slow as number, rate_limited: limited }
}

/** The request handler of one demo provider, with its state: mode, rate-limit window, calls per path and query. */
function handler (options: DemoProviderOptions, timers: Set<NodeJS.Timeout>) {
  let mode: DemoMode = OFF
  let window = { start: Date.now(), used: 0 }
  const calls = new Map<string, number>()
  const later = (ms: number, answer: () => void) => {
    const timer = setTimeout(() => { timers.delete(timer); answer() }, ms)
    timers.add(timer)
  }

  /** `/v1/prices`, counted against the minute's limit. */
  const prices = (res: ServerResponse, url: URL) => {
    const now = Date.now()
    if (now - window.start >= WINDOW_MS) window = { start: now, used: 0 }
    const reset = String(Math.ceil((window.start + WINDOW_MS - now) / 1000))
    const limits = (left: number, resetS = reset) => ({ 'x-ratelimit-limit': String(options.limitPerMinute), 'x-ratelimit-remaining': String(left), 'x-ratelimit-reset': resetS })
    if (mode.rate_limited) return send(res, 429, { error: `${options.name} is rate-limiting (POST /control)` }, { ...limits(0, '10'), 'retry-after': '10' })
    if (window.used >= options.limitPerMinute) return send(res, 429, { error: `${options.limitPerMinute} requests a minute at most` }, { ...limits(0), 'retry-after': reset })
    window.used++
    const key = url.pathname + url.search
    if (calls.size >= 10_000) calls.clear()
    const n = (calls.get(key) ?? 0) + 1
    calls.set(key, n)
    const left = limits(options.limitPerMinute - window.used)
    const symbol = url.searchParams.get('symbol')
    if (symbol === null) return send(res, 400, { error: 'symbol is required, such as ?symbol=BTC' }, left)
    const base = SYMBOLS[symbol.toUpperCase()]
    if (base === undefined) return send(res, 404, { error: `unknown symbol '${symbol}': try ${Object.keys(SYMBOLS).join(', ')}` }, left)
    send(res, 200, { provider: options.name, symbol: symbol.toUpperCase(), price: priceOf(base, options.name, now), at: new Date(now).toISOString(), calls: n },
      { ...left, 'cache-control': `max-age=${PRICE_MAX_AGE_S}` })
  }

  const route = (req: IncomingMessage, res: ServerResponse, body: string) => {
    const url = new URL(req.url ?? '/', 'http://demo')
    if (url.pathname === '/control') {
      if (req.method === 'POST') {
        const asked = parseMode(body)
        if (typeof asked === 'string') return send(res, 400, { error: asked })
        mode = asked
      }
      return send(res, 200, { provider: options.name, ...mode })
    }
    later(options.latencyMs + mode.slow_ms, () => {
      if (url.pathname === '/health') return send(res, mode.fail ? 503 : 200, { status: mode.fail ? 'failing' : 'ok' })
      if (mode.fail) return send(res, 503, { error: `${options.name} is failing (POST /control)` })
      if (url.pathname === '/v1/prices') return prices(res, url)
      send(res, 404, { error: `no such path ${url.pathname}: try /v1/prices?symbol=BTC` })
    })
  }
  return (req: IncomingMessage, res: ServerResponse) => {
    const parts: Buffer[] = []
    let size = 0
    // A control body is a few bytes; more is read and dropped.
    req.on('data', (part: Buffer) => { size += part.length; if (size <= 65_536) parts.push(part) })
    req.on('end', () => route(req, res, Buffer.concat(parts).toString()))
  }
}

/** A demo provider's server, not yet listening; `stop` ends it and every answer it still owes. */
export function createDemoProvider (options: DemoProviderOptions): { server: Server, stop: () => Promise<void> } {
  const timers = new Set<NodeJS.Timeout>()
  const server = createServer(handler(options, timers))
  const stop = async () => {
    for (const timer of timers) clearTimeout(timer)
    timers.clear()
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
  return { server, stop }
}
