/**
 * The streams benchmark's load generator (streams.ts runs it as its own process, pinned to the load
 * generator's CPU): WebSocket clients written with `ws`, the same code whether they go through the
 * pool, through the bare relay or straight to the upstream. WS_LOAD (JSON, `LoadSpec`) says what to do:
 * - `echo`: `connections` clients, each in a closed loop (send a 100-byte text message, wait for its
 *   echo, send the next); `warmS` seconds of it, then `seconds` measured: round trips and their times.
 * - `firehose`: `connections` clients that send nothing and count what arrives, after `warmS`.
 * - `streams`: `connections` clients, each on a path of its own (`url` + `/i`), opened `OPEN_AT_ONCE`
 *   at a time; then, told to go (a line on stdin), they send `rate` messages a second in all for
 *   `seconds`, and, told again, they close.
 * It writes one JSON line per event to stdout, `WS_LOAD {…}`: `measuring` when the measured window
 * opens and `measured` when it closes (the bench reads the server's CPU at both; in `streams` mode the
 * window closes once the last echo came back), and the results: `done` (or `opened`, `sent`, `closed`).
 */
import { createInterface } from 'node:readline'
import WebSocket from 'ws'

/** What one run of the load generator does. */
export interface LoadSpec {
  readonly mode: 'echo' | 'firehose' | 'streams'
  readonly url: string
  readonly connections: number
  readonly warmS: number
  readonly seconds: number
  /** `streams`: messages a second, all clients together. */
  readonly rate?: number
}

/** Clients opened at once in `streams` mode. */
const OPEN_AT_ONCE = 50
const PAD = 'x'.repeat(90)
const message = (seq: number) => `${String(seq).padStart(10, '0')}${PAD}`
const sleep = async (ms: number) => { await new Promise((resolve) => setTimeout(resolve, ms)) }
/** Waits until `ready()` holds, or `ms` have passed. */
async function waitFor (ready: () => boolean, ms: number): Promise<void> {
  for (const deadline = Date.now() + ms; !ready() && Date.now() < deadline;) await sleep(5)
}
const emit = (event: string, fields: object = {}) => { process.stdout.write(`WS_LOAD ${JSON.stringify({ event, ...fields })}\n`) }

/** Unexpected closes by code, and answers that were not the echo of what was sent. */
const trouble = { closes: {} as Record<string, number>, wrong: 0 }
let closing = false

async function open (url: string): Promise<WebSocket> {
  const ws = new WebSocket(url, { perMessageDeflate: false })
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => { resolve() })
    ws.once('unexpected-response', (_req, res) => { reject(new Error(`${url}: upgrade answered ${res.statusCode ?? 0}`)) })
    ws.once('error', reject)
  })
  ws.on('error', () => {})
  ws.on('close', (code) => { if (!closing) trouble.closes[code] = (trouble.closes[code] ?? 0) + 1 })
  return ws
}

async function closeAll (clients: WebSocket[]): Promise<void> {
  closing = true
  await Promise.all(clients.map(async (ws) => {
    if (ws.readyState === ws.CLOSED) return
    const closed = new Promise((resolve) => ws.once('close', resolve))
    ws.close(1000)
    await Promise.race([closed, sleep(3000)])
    ws.terminate()
  }))
}

/** p50 and p99 of `times` (ms), sorted in place. */
function percentiles (times: number[]): { p50: number, p99: number } {
  times.sort((a, b) => a - b)
  const at = (p: number) => times.length === 0 ? NaN : times[Math.min(times.length - 1, Math.floor(p * times.length))] as number
  return { p50: at(0.5), p99: at(0.99) }
}

/** Opens the measured window after `warmS`, closes it after `seconds`; `set` turns counting on and off. */
async function window (spec: LoadSpec, set: (on: boolean) => void): Promise<number> {
  await sleep(spec.warmS * 1000)
  emit('measuring')
  set(true)
  const started = performance.now()
  await sleep(spec.seconds * 1000)
  set(false)
  emit('measured')
  return (performance.now() - started) / 1000
}

async function echo (spec: LoadSpec): Promise<void> {
  const clients = await Promise.all(Array.from({ length: spec.connections }, async () => await open(spec.url)))
  let seq = 0
  let running = true
  let measuring = false
  let inFlight = 0
  const times: number[] = []
  for (const ws of clients) {
    let sent = ''
    let at = 0
    const next = () => { sent = message(seq++); at = performance.now(); inFlight++; ws.send(sent) }
    ws.on('message', (data: Buffer) => {
      const now = performance.now()
      inFlight--
      if (data.toString() !== sent) trouble.wrong++
      if (measuring) times.push(now - at)
      if (running) next()
    })
    next()
  }
  const seconds = await window(spec, (on) => { measuring = on })
  running = false
  await waitFor(() => inFlight === 0, 2000)
  await closeAll(clients)
  emit('done', { messages: times.length, seconds, ...percentiles(times), ...trouble, unanswered: inFlight })
}

async function firehose (spec: LoadSpec): Promise<void> {
  const clients = await Promise.all(Array.from({ length: spec.connections }, async () => await open(spec.url)))
  let count = 0
  let measuring = false
  for (const ws of clients) ws.on('message', () => { if (measuring) count++ })
  const seconds = await window(spec, (on) => { measuring = on })
  await closeAll(clients)
  emit('done', { messages: count, seconds, ...trouble })
}

async function streams (spec: LoadSpec, lines: AsyncIterator<string>): Promise<void> {
  const started = performance.now()
  const clients: WebSocket[] = []
  for (let i = 0; i < spec.connections; i += OPEN_AT_ONCE) {
    const batch = Array.from({ length: Math.min(OPEN_AT_ONCE, spec.connections - i) }, async (_, k) => await open(`${spec.url}/${i + k}`))
    clients.push(...await Promise.all(batch))
  }
  emit('opened', { ms: performance.now() - started })
  await lines.next()
  const sentAt = clients.map(() => [] as number[])
  const times: number[] = []
  clients.forEach((ws, i) => {
    ws.on('message', () => {
      const at = (sentAt[i] as number[]).shift()
      if (at !== undefined) times.push(performance.now() - at)
    })
  })
  const rate = spec.rate ?? 1000
  let sent = 0
  emit('measuring')
  const from = performance.now()
  for (let elapsed = 0; elapsed < spec.seconds * 1000; elapsed = performance.now() - from) {
    for (const due = Math.floor((elapsed / 1000) * rate); sent < due; sent++) {
      const k = sent % clients.length
      ;(sentAt[k] as number[]).push(performance.now())
      ;(clients[k] as WebSocket).send(message(sent))
    }
    await sleep(2)
  }
  const seconds = (performance.now() - from) / 1000
  await waitFor(() => times.length >= sent, 3000)
  emit('measured')
  emit('sent', { sent, echoed: times.length, seconds, ...percentiles(times), ...trouble })
  await lines.next()
  await closeAll(clients)
  emit('closed')
}

const spec = JSON.parse(process.env.WS_LOAD ?? '{}') as LoadSpec
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]()
try {
  if (spec.mode === 'echo') await echo(spec)
  else if (spec.mode === 'firehose') await firehose(spec)
  else await streams(spec, lines)
} catch (error) {
  emit('failed', { error: (error as Error).message })
  process.exitCode = 1
}
process.exit()
