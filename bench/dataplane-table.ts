/**
 * The table of the `dataplane` part (issue 35's benchmark): one row per target, the peer's figure
 * measured in the same run beside every build of the service under test (this checkout, and the
 * one BENCH_SERVICE_DIR names for an A/B), each with its ratio and met / not met. Building the
 * cells from the figures is here; measuring them is dataplane.ts.
 */
import type { GcReading } from './gc-window.js'
import type { LoadResult } from './load.js'
import type { BurstRound, Measured } from './cache.js'

/** A measured run with what the GC probe saw during it. */
export interface GcRun { readonly run: Measured, readonly gc: GcReading }

/** Everything measured for one build of the service. */
export interface Figures {
  readonly label: string
  proxy?: Measured
  gc?: GcRun
  alone?: LoadResult
  readonly wide: Map<number, LoadResult>
  hit?: Measured
  hitTrouble?: string
  readonly bursts: BurstRound[]
  refusing?: Measured
  refusingStatus?: string
  resets?: { readonly connects: number, readonly allowed: number, readonly ms: number, readonly statuses: string }
}

/** The peers, each measured once in the run. */
export interface Peers {
  direct?: Measured
  nginx?: Measured
  nginxSkip: string
  replyFrom?: Measured
  replyFromGc?: GcRun
  directAlone?: LoadResult
  readonly directWide: Map<number, LoadResult>
  bare?: Measured
  nginxHit?: Measured
  nginxHitTrouble?: string
  nginxHitSkip: string
  readonly directBursts: BurstRound[]
}

interface Cell { readonly figure: string, readonly ratio: string, readonly met: string }
interface Row { readonly measure: string, readonly peer: string, readonly peerFigure: string, readonly target: string, readonly cells: Cell[] }

const int = (n: number) => Math.round(n).toLocaleString('en-US')
const ms = (n: number) => n.toFixed(3)
const us = (n: number | undefined) => n === undefined ? '–' : `${int(n)} µs`
const missing: Cell = { figure: '–', ratio: '–', met: 'not measured' }

/** met / **not met** / reported, or invalid when a run that should have succeeded had failures. */
function verdict (ok: boolean | undefined, errors = 0): string {
  if (errors > 0) return `invalid: ${errors} failed requests`
  return ok === undefined ? 'reported' : ok ? 'met' : '**not met**'
}

/** A cell whose ratio is `ratio` (undefined when either side is missing), met when `ok` says so. */
function cell (figure: string, ratio: number | undefined, ok: (ratio: number) => boolean | undefined, errors = 0): Cell {
  if (ratio === undefined || !Number.isFinite(ratio)) return { figure, ratio: '–', met: 'not measured' }
  return { figure, ratio: ratio.toFixed(2), met: verdict(ok(ratio), errors) }
}

const errorsOf = (...runs: Array<Measured | undefined>) => runs.reduce((sum, m) => sum + (m?.run.errors ?? 0), 0)
const atLeast = (min: number) => (ratio: number) => ratio >= min
const atMost = (max: number) => (ratio: number) => ratio <= max
const reported = () => undefined

/** The proxy's rows (items 1 and 2 of the brief). */
function proxyRows (peers: Peers, all: Figures[]): Row[] {
  const nginxName = 'NGINX, 1 worker, upstream keepalive'
  const nginx = (name: string, target: string, make: (f: Figures, n: Measured) => Cell): Row => ({
    measure: name,
    peer: peers.nginx === undefined ? `${nginxName} (skipped: ${peers.nginxSkip})` : nginxName,
    peerFigure: peers.nginx === undefined ? '–' : name.includes('CPU') ? us(peers.nginx.cpuUs) : int(peers.nginx.run.rps),
    target,
    cells: all.map((f) => peers.nginx === undefined || f.proxy === undefined ? missing : make(f, peers.nginx))
  })
  const rf = peers.replyFrom
  const rows: Row[] = [
    {
      measure: 'proxy, 1 KiB, 3-member pool, 10 conn.: requests/s',
      peer: 'Fastify + @fastify/reply-from',
      peerFigure: rf === undefined ? '–' : int(rf.run.rps),
      target: '≥ 1.0',
      cells: all.map((f) => f.proxy === undefined || rf === undefined ? missing : cell(int(f.proxy.run.rps), f.proxy.run.rps / rf.run.rps, atLeast(1), errorsOf(f.proxy, rf)))
    },
    {
      measure: 'proxy, 10 conn.: server CPU per request (ratio: its ÷ ours)',
      peer: 'Fastify + @fastify/reply-from',
      peerFigure: us(rf?.cpuUs),
      target: '≥ 1.0',
      cells: all.map((f) => cell(us(f.proxy?.cpuUs), rf?.cpuUs === undefined || f.proxy?.cpuUs === undefined ? undefined : rf.cpuUs / f.proxy.cpuUs, atLeast(1), errorsOf(f.proxy, rf)))
    },
    nginx('proxy, 10 conn.: requests/s', '≥ 0.4', (f, n) => cell(int(f.proxy?.run.rps ?? NaN), (f.proxy?.run.rps ?? NaN) / n.run.rps, atLeast(0.4), errorsOf(f.proxy, n))),
    nginx('proxy, 10 conn.: server CPU per request (ratio: its ÷ ours)', 'reported', (f, n) =>
      cell(us(f.proxy?.cpuUs), n.cpuUs === undefined || f.proxy?.cpuUs === undefined ? undefined : n.cpuUs / f.proxy.cpuUs, reported, errorsOf(f.proxy, n))),
    {
      measure: 'proxy, 1 conn., one request at a time: added median latency',
      peer: 'the upstream directly: median',
      peerFigure: peers.directAlone === undefined ? '–' : `${ms(peers.directAlone.p50)} ms`,
      target: '≤ +0.3 ms',
      cells: all.map((f) => {
        if (f.alone === undefined || peers.directAlone === undefined) return missing
        const added = f.alone.p50 - peers.directAlone.p50
        return { figure: `${ms(f.alone.p50)} ms`, ratio: `+${ms(added)} ms`, met: verdict(added <= 0.3, f.alone.errors + peers.directAlone.errors) }
      })
    }
  ]
  for (const [connections, direct] of peers.directWide) {
    rows.push({
      measure: `proxy, ${connections} conn.: p99 (ratio: ours ÷ direct's)`,
      peer: `the upstream directly: p99 (${int(direct.rps)} req/s)`,
      peerFigure: `${direct.p99.toFixed(2)} ms`,
      target: '≤ 2.0',
      cells: all.map((f) => {
        const ours = f.wide.get(connections)
        return ours === undefined ? missing : cell(`${ours.p99.toFixed(2)} ms (${int(ours.rps)} req/s)`, ours.p99 / direct.p99, atMost(2), ours.errors + direct.errors)
      })
    })
  }
  return rows
}

/** The cache's rows (items 3 and 4). */
function cacheRows (peers: Peers, all: Figures[]): Row[] {
  const against = (name: string, peer: Measured | undefined, skip: string | undefined, trouble: string | undefined, min: number): Row[] => {
    const invalid = (f: Figures, c: Cell): Cell => {
      const why = f.hitTrouble ?? trouble
      return why === undefined ? c : { ...c, met: `invalid: ${why}` }
    }
    const peerName = skip === undefined ? name : `${name} (skipped: ${skip})`
    return [
      {
        measure: 'cache HIT, 2.1 KB JSON, 10 conn.: requests/s',
        peer: peerName,
        peerFigure: peer === undefined ? '–' : int(peer.run.rps),
        target: `≥ ${min}`,
        cells: all.map((f) => f.hit === undefined || peer === undefined ? missing : invalid(f, cell(int(f.hit.run.rps), f.hit.run.rps / peer.run.rps, atLeast(min), errorsOf(f.hit, peer))))
      },
      {
        measure: 'cache HIT, 10 conn.: server CPU per answer (ratio: its ÷ ours)',
        peer: peerName,
        peerFigure: us(peer?.cpuUs),
        target: `≥ ${min}`,
        cells: all.map((f) => f.hit?.cpuUs === undefined || peer?.cpuUs === undefined
          ? missing
          : invalid(f, cell(us(f.hit.cpuUs), peer.cpuUs / f.hit.cpuUs, atLeast(min), errorsOf(f.hit, peer))))
      }
    ]
  }
  const worst = (rounds: readonly BurstRound[]) => rounds.length === 0 ? undefined : Math.max(...rounds.map((r) => r.p99))
  const directP99 = worst(peers.directBursts)
  return [
    ...against('bare Fastify route, the same bytes from memory', peers.bare, undefined, undefined, 0.5),
    ...against('NGINX proxy_cache HIT, 1 worker', peers.nginxHit, peers.nginxHit === undefined ? peers.nginxHitSkip : undefined, peers.nginxHitTrouble, 0.3),
    {
      measure: '1,000 identical concurrent GETs, 200 ms upstream: upstream calls per burst',
      peer: 'the upstream directly (every request reaches it)',
      peerFigure: peers.directBursts.map((r) => int(r.calls)).join(', ') || '–',
      target: '1',
      cells: all.map((f) => f.bursts.length === 0
        ? missing
        : {
            figure: f.bursts.map((r) => r.calls).join(', '),
            ratio: '–',
            met: f.bursts.every((r) => r.problems.length === 0) ? 'met' : `**not met**: ${f.bursts.flatMap((r) => r.problems).join('; ')}`
          })
    },
    {
      measure: '1,000 identical concurrent GETs: p99 (worst burst)',
      peer: 'the same burst straight to the upstream: p99',
      peerFigure: directP99 === undefined ? '–' : `${directP99.toFixed(1)} ms`,
      target: '≤ 250 ms',
      cells: all.map((f) => {
        const p99 = worst(f.bursts)
        return p99 === undefined ? missing : { figure: `${p99.toFixed(1)} ms (${f.bursts.map((r) => r.p99.toFixed(1)).join(', ')})`, ratio: '–', met: verdict(p99 <= 250) }
      })
    }
  ]
}

/** The failure rows (items 5 and 6) and the allocation rows (item 7). */
function costRows (peers: Peers, all: Figures[]): Row[] {
  const rf = peers.replyFromGc
  /** A row of `perRequest` (a figure per request of a probed run) for each build against reply-from's. */
  const gcRow = (measure: string, perRequest: (g: GcRun) => number, show: (n: number) => string): Row => ({
    measure,
    peer: 'Fastify + @fastify/reply-from, same probe',
    peerFigure: rf === undefined ? '–' : show(perRequest(rf)),
    target: 'reported (ratio: ours ÷ its)',
    cells: all.map((f) => f.gc === undefined || rf === undefined
      ? missing
      : cell(show(perRequest(f.gc)), perRequest(f.gc) / perRequest(rf), reported, errorsOf(f.gc.run, rf.run)))
  })
  const requests = (g: GcRun) => g.run.run.requests
  return [
    {
      measure: 'a request whose 3 members all refuse the connection: server CPU (ratio: ours ÷ the success path\'s)',
      peer: 'the same build\'s proxied success, 10 conn. (row 2)',
      peerFigure: all.map((f) => us(f.proxy?.cpuUs)).join(' / '),
      target: '≤ 1.0',
      cells: all.map((f) => f.refusing?.cpuUs === undefined || f.proxy?.cpuUs === undefined
        ? missing
        : cell(`${us(f.refusing.cpuUs)} (${f.refusingStatus ?? '?'})`, f.refusing.cpuUs / f.proxy.cpuUs, atMost(1)))
    },
    {
      measure: 'connects to 2 members resetting every connection, 40 quick requests, failure_threshold 1',
      peer: 'NGINX: none while every server is marked down (issue 35)',
      peerFigure: '–',
      target: 'a few: ≤ 1 per member and second, +1 each',
      cells: all.map((f) => f.resets === undefined
        ? missing
        : { figure: `${f.resets.connects} (${int(f.resets.ms)} ms; ${f.resets.statuses})`, ratio: `allowed ${f.resets.allowed}`, met: verdict(f.resets.connects <= f.resets.allowed) })
    },
    gcRow('proxy, 10 conn.: bytes allocated on the V8 heap per request', (g) => g.gc.allocatedBytes / requests(g), (n) => `${(n / 1024).toFixed(1)} KiB`),
    gcRow('proxy, 10 conn.: GC time on the main thread per request', (g) => g.gc.gcUs / requests(g), (n) => `${n.toFixed(1)} µs`),
    gcRow('proxy, 10 conn.: CPU of the other threads (V8\'s GC and compiler helpers) per request',
      (g) => (g.run.cpuUs ?? NaN) - (g.run.mainUs ?? NaN), (n) => `${n.toFixed(1)} µs`)
  ]
}

/** Prints the table: the peer once, then figure, ratio and verdict for each build. */
export function printTable (peers: Peers, all: Figures[]): void {
  const rows = [...proxyRows(peers, all), ...cacheRows(peers, all), ...costRows(peers, all)]
  console.log(`\n| measure | peer, same run | peer's figure | ${all.map((f) => `${f.label} | ratio | met?`).join(' | ')} | target |`)
  console.log(`|---|---|---:|${all.map(() => '---:|---:|---|').join('')}---|`)
  for (const row of rows) {
    console.log(`| ${row.measure} | ${row.peer} | ${row.peerFigure} | ${row.cells.map((c) => `${c.figure} | ${c.ratio} | ${c.met}`).join(' | ')} | ${row.target} |`)
  }
}

/** The GC probe's readings in full, per server: what stands behind the allocation rows. */
export function printGc (peers: Peers, all: Figures[]): void {
  const runs: Array<[string, GcRun | undefined]> = [['Fastify + @fastify/reply-from', peers.replyFromGc], ...all.map((f) => [`sourcepool, ${f.label}`, f.gc] as [string, GcRun | undefined])]
  console.log('\nAllocation and GC over one 10-connection run of each (the probe\'s window; CPU from /proc, user + system):\n')
  console.log('| server | req/s | CPU µs / req, main thread | other threads | heap KiB / req | GC µs / req (main thread) | collections (scavenge / mark-compact / other) | event-loop utilization |')
  console.log('|---|---:|---:|---:|---:|---:|---|---:|')
  for (const [name, g] of runs) {
    if (g === undefined) continue
    const n = g.run.run.requests
    const counts = g.gc.gcCounts
    const scavenges = counts.Scavenge ?? 0
    const marks = counts.MarkSweepCompact ?? 0
    const others = Object.values(counts).reduce((sum, c) => sum + c, 0) - scavenges - marks
    console.log(`| ${name} | ${int(g.run.run.rps)} | ${(g.run.mainUs ?? NaN).toFixed(1)} | ${((g.run.cpuUs ?? NaN) - (g.run.mainUs ?? NaN)).toFixed(1)} | ` +
      `${(g.gc.allocatedBytes / n / 1024).toFixed(2)} | ${(g.gc.gcUs / n).toFixed(2)} | ${scavenges} / ${marks} / ${others} | ${g.gc.utilization.toFixed(2)} |`)
  }
}

/** Every coalescing burst, as cache.ts's table shows them. */
export function printBursts (peers: Peers, all: Figures[]): void {
  console.log('\nThe bursts (1,000 identical GETs on 1,000 open connections, fresh key each, upstream answering after 200 ms):\n')
  console.log('| to | round | server CPU ms | upstream calls | x-sourcepool-cache | MISS ms | statuses | p50 ms | p99 ms | max ms |')
  console.log('|---|---:|---:|---:|---|---:|---|---:|---:|---:|')
  const print = (to: string, rounds: readonly BurstRound[]) => rounds.forEach((r, i) => {
    console.log(`| ${to} | ${i + 1} | ${r.cpuMs === undefined ? '–' : int(r.cpuMs)} | ${r.calls} | ${r.cache} | ${r.leaderMs?.toFixed(1) ?? '–'} | ` +
      `${r.statuses} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.max.toFixed(1)} |`)
  })
  for (const f of all) print(`sourcepool, ${f.label}`, f.bursts)
  print('the upstream directly', peers.directBursts)
}
