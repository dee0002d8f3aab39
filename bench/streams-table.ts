/**
 * The table of the streams benchmark (streams.ts): each figure of sourcepool's streams beside its
 * peer from the same run, the ratio, the target and whether it is met; then every run behind it, with
 * the machine's load average when it ended (the bench's own processes count in it: about 2 while a
 * run loads both CPUs).
 */
import { loadavg } from 'node:os'
import type { WindowRun } from './ws-load-process.js'

/** One measured run, as the runs table shows it. */
export interface Run {
  readonly name: string
  readonly connections: number
  /** Messages a second: round trips (echo), messages delivered to the clients (firehose). */
  readonly rate: number
  readonly p50?: number
  readonly p99?: number
  readonly messages: number
  /** CPU of the process in the middle (the service, the bare relay, or the upstream when direct), µs per message. */
  readonly cpuUs: number
  /** The share of the window its main thread (the event loop) was on a CPU, 0–1. */
  readonly mainBusy: number
  /** What went wrong in the run (closes, wrong echoes, messages never answered), or undefined. */
  readonly trouble?: string
  readonly load: number
}

/** The runs in the order they ran. */
export const runs: Run[] = []

/** Records `window` (from `messages` and the CPU of its window) as run `name` and returns it. */
export function record (name: string, connections: number, window: WindowRun): Run {
  const r = window.report
  const messages = Number(r.messages ?? r.sent)
  const problems: string[] = []
  for (const [code, n] of Object.entries((r.closes ?? {}) as Record<string, number>)) problems.push(`${n} closed with ${code}`)
  if (Number(r.wrong ?? 0) > 0) problems.push(`${String(r.wrong)} wrong echoes`)
  const unanswered = Number(r.unanswered ?? 0) + (r.sent === undefined ? 0 : Number(r.sent) - Number(r.echoed))
  if (unanswered > 0) problems.push(`${unanswered} never echoed`)
  const run: Run = {
    name,
    connections,
    rate: messages / Number(r.seconds),
    ...(typeof r.p50 === 'number' ? { p50: r.p50, p99: r.p99 as number } : {}),
    messages,
    cpuUs: (window.cpuS / messages) * 1e6,
    mainBusy: window.mainS / Number(r.seconds),
    ...(problems.length === 0 ? {} : { trouble: problems.join(', ') }),
    load: loadavg()[0] as number
  }
  runs.push(run)
  process.stderr.write(`bench: streams: ${int(run.rate)} msgs/s, p50 ${ms(run.p50)}, p99 ${ms(run.p99)}, ${us(run.cpuUs)} CPU per message, ` +
    `main thread ${percent(run.mainBusy)} busy, ${run.trouble ?? 'no trouble'}\n`)
  return run
}

/** One line of the table. */
export interface Line {
  readonly measure: string
  readonly figure: string
  readonly peer: string
  readonly peerFigure: string
  readonly ratio: string
  readonly target: string
  readonly met: string
}

export const int = (n: number) => Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–'
export const us = (n: number) => Number.isFinite(n) ? `${n < 100 ? n.toFixed(1) : int(n)} µs` : '–'
export const ms = (n: number | undefined) => n === undefined || !Number.isFinite(n) ? '–' : `${n.toFixed(3)} ms`
const percent = (share: number) => `${Math.round(share * 100)} %`
const signed = (n: number) => `${n < 0 ? '−' : '+'}${Math.abs(n).toFixed(3)}`

/** What makes a comparison of `compared` prove nothing, or undefined. */
function invalid (compared: readonly Run[]): string | undefined {
  const bad = compared.filter((r) => r.trouble !== undefined)
  return bad.length === 0 ? undefined : `invalid: ${bad.map((r) => `${r.name}: ${r.trouble as string}`).join('; ')}`
}

/** A throughput line: ours over the peer's, met when at least `min` (reported without one). */
export function rateLine (measure: string, ours: Run, peer: Run, min?: number): Line {
  const ratio = ours.rate / peer.rate
  const met = invalid([ours, peer]) ?? (min === undefined ? 'reported' : ratio >= min ? 'met' : '**not met**')
  return { measure, figure: int(ours.rate), peer: peer.name, peerFigure: int(peer.rate), ratio: ratio.toFixed(2), target: min === undefined ? '–' : `≥ ${min}`, met }
}

/** A CPU line: ours per message against the peer's, reported. */
export function cpuLine (measure: string, ours: Run, peer: Run): Line {
  return { measure, figure: us(ours.cpuUs), peer: peer.name, peerFigure: us(peer.cpuUs), ratio: (ours.cpuUs / peer.cpuUs).toFixed(2), target: '–', met: invalid([ours, peer]) ?? 'reported' }
}

/** A latency line: `pick` of ours less the peer's, met when it adds at most `max` ms (reported without one). */
export function latencyLine (measure: string, ours: Run, peer: Run, pick: 'p50' | 'p99', max?: number): Line {
  const added = (ours[pick] ?? NaN) - (peer[pick] ?? NaN)
  const met = invalid([ours, peer]) ?? (max === undefined ? 'reported' : added <= max ? 'met' : '**not met**')
  return { measure, figure: ms(ours[pick]), peer: peer.name, peerFigure: ms(peer[pick]), ratio: `${signed(added)} ms`, target: max === undefined ? '–' : `≤ +${max} ms`, met }
}

/** A line with no peer: a figure reported. */
export function reportedLine (measure: string, figure: string, note = '–', trouble?: string): Line {
  return { measure, figure, peer: note, peerFigure: '–', ratio: '–', target: 'reported', met: trouble === undefined ? 'reported' : `invalid: ${trouble}` }
}

export function printLines (lines: readonly Line[]): void {
  console.log('\n| measure | sourcepool | peer, same run | peer\'s figure | ratio | target | met? |')
  console.log('|---|---:|---|---:|---:|---|---|')
  for (const l of lines) console.log(`| ${l.measure} | ${l.figure} | ${l.peer} | ${l.peerFigure} | ${l.ratio} | ${l.target} | ${l.met} |`)
}

export function printRuns (): void {
  console.log('\nThe runs behind it, in the order they ran (CPU: of the process between the clients and the upstream, or of the upstream when direct, ' +
    '/proc user + system over the measured window; its main thread\'s share of the window beside it):\n')
  console.log('| run | clients | msgs/s | p50 | p99 | messages | CPU per message | main thread busy | trouble | load average (1 min) at its end |')
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---|---:|')
  for (const r of runs) {
    console.log(`| ${r.name} | ${int(r.connections)} | ${int(r.rate)} | ${ms(r.p50)} | ${ms(r.p99)} | ${int(r.messages)} | ${us(r.cpuUs)} | ${percent(r.mainBusy)} | ` +
      `${r.trouble ?? '–'} | ${r.load.toFixed(2)} |`)
  }
}
