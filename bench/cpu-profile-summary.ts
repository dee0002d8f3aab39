/**
 * Reads a V8 CPU profile (`.cpuprofile`, as node:inspector or `node --cpu-prof` writes it) into the
 * shares the streams benchmark prints when it profiles (BENCH_STREAMS_PROFILE): the process's busy
 * samples (idle left out) by where their code lives — each file of the service (dist/ when compiled),
 * each file of a package, Node's internals, the garbage collector — and the service's own functions with
 * the share of the samples they were on the stack for (their callees included), so a share can be named
 * by file and function.
 */
import { readFileSync } from 'node:fs'

interface ProfileNode {
  readonly id: number
  readonly callFrame: { readonly functionName: string, readonly url: string, readonly lineNumber: number }
  readonly children?: readonly number[]
}

interface Profile { readonly nodes: readonly ProfileNode[], readonly samples: readonly number[] }

/** One line of the summary: a place and its share of the busy samples (0–1). */
export interface Share { readonly name: string, readonly share: number }

/** A profile's busy samples by place (self time) and the service's own functions (their callees included). */
export interface ProfileSummary { readonly busySamples: number, readonly byPlace: Share[], readonly ownFunctions: Share[] }

/**
 * Where a frame's code lives: `dist/streams/relay.js` (the compiled service: line numbers are dist's),
 * `src/streams/relay.ts` (run through tsx), `ws/lib/sender.js`, `node:internal`, `(native) writev`,
 * `(garbage collector)`.
 */
function placeOf (url: string, functionName: string): string {
  // Native frames by name: the write syscalls (`writev`, `writeBuffer`) are most of a relay's time.
  if (url === '') return functionName.startsWith('(') ? functionName : `(native) ${functionName === '' ? '(anonymous)' : functionName}`
  const own = /\/((?:src|dist)\/.+)$/.exec(url)
  if (own !== null && !url.includes('node_modules')) return own[1] as string
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(.+)$/.exec(url)
  if (pkg !== null) return `${pkg[1] as string}/${pkg[2] as string}`
  return url.startsWith('node:') ? 'node:internal' : url
}

const isOwn = (place: string) => place.startsWith('dist/') || place.startsWith('src/')

const sorted = (counts: Map<string, number>, total: number): Share[] =>
  [...counts].map(([name, n]) => ({ name, share: n / total })).sort((a, b) => b.share - a.share)

/** Summarizes the profile in `file`. */
export function summarizeProfile (file: string): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  const self = new Map<string, number>()
  const inclusive = new Map<string, number>()
  let busy = 0
  for (const id of profile.samples) {
    const node = byId.get(id)
    if (node === undefined || node.callFrame.functionName === '(idle)') continue
    busy++
    const place = placeOf(node.callFrame.url, node.callFrame.functionName)
    self.set(place, (self.get(place) ?? 0) + 1)
    const seen = new Set<string>()
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)?.callFrame
      if (frame === undefined) break
      const where = placeOf(frame.url, frame.functionName)
      if (!isOwn(where)) continue
      const name = `${frame.functionName === '' ? '(anonymous)' : frame.functionName} (${where}:${frame.lineNumber + 1})`
      if (seen.has(name)) continue
      seen.add(name)
      inclusive.set(name, (inclusive.get(name) ?? 0) + 1)
    }
  }
  return { busySamples: busy, byPlace: sorted(self, busy), ownFunctions: sorted(inclusive, busy) }
}

/** Prints the summary of `file` under `title`: the places and functions with at least `min` of the busy samples. */
export function printProfileSummary (title: string, file: string, min = 0.01): void {
  const summary = summarizeProfile(file)
  const percent = (share: number) => `${(share * 100).toFixed(1)} %`
  console.log(`\n${title} (${file}; ${summary.busySamples} busy samples):\n`)
  console.log('| where the code lives (self time) | share | | the service\'s functions (on the stack) | share |')
  console.log('|---|---:|---|---|---:|')
  const places = summary.byPlace.filter((s) => s.share >= min)
  const own = summary.ownFunctions.filter((s) => s.share >= min)
  for (let i = 0; i < Math.max(places.length, own.length); i++) {
    const p = places[i]
    const o = own[i]
    console.log(`| ${p?.name ?? ''} | ${p === undefined ? '' : percent(p.share)} | | ${o?.name ?? ''} | ${o === undefined ? '' : percent(o.share)} |`)
  }
}
