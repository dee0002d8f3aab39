// Why: one pool in full. Its members with their health (a cooldown counting
// down; a rate limit or a rejected key in its own words), its response cache
// (hit ratio, quota saved), latency, success rate, quota and last check; which
// provider "next" would choose and why; an evm pool's nodes' heads and lag (a
// lagging one marked); the last hour as charts; the history as
// a timeline; and, for a token allowed to, the actions an operator takes at night.
import { api } from './api.js'
import { Chart, ConfirmButton, Health, Loaded, QuotaBar, minuteSeconds } from './components.js'
import { useLive, useNow } from './live.js'
import { recordKind } from './history.js'
import { Legend, poolAlerts } from './overview.js'
import { headReading, showsHeads } from './heads.js'
import { ago, cacheSummary, calls, clock, html, percent, useEffect, useMemo, useState } from './ui.js'

function lastCheck (check, now) {
  if (check === null) return html`<span class="muted">no check</span>`
  const what = check.ok ? `passed${check.status_code == null ? '' : ` (${check.status_code})`}` : `failed${check.status_code == null ? '' : ` (${check.status_code})`}${check.error ? `: ${check.error}` : ''}`
  return html`<span class=${check.ok ? 'ok-text' : 'alert-text'}>${what}</span> <span class="muted">${ago(check.at, now)}</span>`
}

const PRIORITY = { min: 0, max: 1_000_000 }
const WEIGHT = { min: 1, max: 1_000_000 }

/** The whole number a field holds within `range`, or null. */
function wholeNumber (text, range) {
  if (!/^\d+$/.test(text.trim())) return null
  const value = Number(text)
  return value >= range.min && value <= range.max ? value : null
}

/**
 * Priority and weight edited in place, saved once confirmed. Only the fields that
 * changed are sent; Save stays off while a field is empty or not a whole number in
 * range. The inputs follow the member's values when they change elsewhere.
 */
function MemberEdit ({ pool, member, onDone }) {
  const [priority, setPriority] = useState(String(member.priority))
  const [weight, setWeight] = useState(String(member.weight))
  useEffect(() => { setPriority(String(member.priority)) }, [member.priority])
  useEffect(() => { setWeight(String(member.weight)) }, [member.weight])
  const newPriority = wholeNumber(priority, PRIORITY)
  const newWeight = wholeNumber(weight, WEIGHT)
  const changes = {}
  if (newPriority !== null && newPriority !== member.priority) changes.priority = newPriority
  if (newWeight !== null && newWeight !== member.weight) changes.weight = newWeight
  const valid = newPriority !== null && newWeight !== null
  const name = member.provider_name ?? `provider ${member.provider_id}`
  const said = Object.entries(changes).map(([field, value]) => `${field} to ${value}`).join(' and ')
  return html`<span class="member-edit">
    <label>Priority <input type="number" inputmode="numeric" min=${PRIORITY.min} max=${PRIORITY.max} step="1" required value=${priority} aria-invalid=${newPriority === null ? 'true' : undefined} onInput=${(e) => setPriority(e.currentTarget.value)} data-field="priority" /></label>
    <label>Weight <input type="number" inputmode="numeric" min=${WEIGHT.min} max=${WEIGHT.max} step="1" required value=${weight} aria-invalid=${newWeight === null ? 'true' : undefined} onInput=${(e) => setWeight(e.currentTarget.value)} data-field="weight" /></label>
    <${ConfirmButton} name=${`save-${member.provider_id}`} label="Save" disabled=${!valid || said === ''}
      question=${`Set ${name}'s ${said} in ${pool.name}?`}
      run=${() => api('PUT', `/api/pools/${pool.pool_id}/members/${member.provider_id}`, changes)}
      onDone=${onDone} />
  </span>`
}

/** An evm member's node head and lag, marked when it lags (left out of calls at the head). */
function HeadCell ({ member, maxLag }) {
  const reading = headReading(member, maxLag)
  return html`<td data-label="Head" class="num" data-head=${member.head_block ?? ''} data-lagging=${reading.lagging ? 'true' : undefined} title=${reading.title}>
    <span class=${reading.lagging ? 'alert-text' : undefined}>${reading.text}</span>${reading.behind === null ? null : html` <span class="muted">(${reading.behind})</span>`}${reading.lagging ? html` <span class="tag tag-bad">lagging</span>` : null}
  </td>`
}

function MemberRow ({ pool, member, now, admin, onDone }) {
  const name = member.provider_name ?? `provider ${member.provider_id}`
  return html`<tr data-member=${member.provider_id}>
    <th scope="row" data-label="Provider"><a href=${`#/providers?id=${member.provider_id}`}>${name}</a>${pool.current_provider?.provider_id === member.provider_id ? html` <span class="tag tag-current">serving</span>` : null}</th>
    <td data-label="Priority · weight">${admin ? html`<${MemberEdit} pool=${pool} member=${member} onDone=${onDone} />` : `${member.priority} · ${member.weight}`}</td>
    <td data-label="Health"><${Health} member=${member} now=${now} /></td>
    ${showsHeads(pool) ? html`<${HeadCell} member=${member} maxLag=${pool.policy.max_block_lag} />` : null}
    <td data-label="Latency" class="num">${member.latency_ms === null ? '—' : `${Math.round(member.latency_ms)} ms`}</td>
    <td data-label="Success" class="num">${member.success_count + member.failure_count === 0 ? '—' : `${member.success_rate} %`} <span class="muted">(${member.success_count}/${member.success_count + member.failure_count})</span></td>
    <td data-label="Quota"><${QuotaBar} quota=${member.quota} /></td>
    <td data-label="Last check">${lastCheck(member.last_check, now)}</td>
    <td data-label="Enabled">${admin
      ? html`<${ConfirmButton} name=${`toggle-${member.provider_id}`} label=${member.enabled ? 'Disable' : 'Enable'}
          question=${`${member.enabled ? 'Disable' : 'Enable'} ${name} in ${pool.name}?${member.enabled ? ' No rotation will choose it until it is enabled again.' : ''}`}
          run=${() => api('PUT', `/api/pools/${pool.pool_id}/members/${member.provider_id}`, { enabled: !member.enabled })} onDone=${onDone} />`
      : member.enabled ? 'yes' : 'no'}</td>
  </tr>`
}

/** The ISO time a service note names after `until `, or null. */
const untilIn = (notes) => /until (\d{4}-\d{2}-\d{2}T[\d:.]+Z)/.exec(notes ?? '')?.[1] ?? null

/** The HTTP status a cooldown's notes end with (`… (HTTP 401)` or `… HTTP 401`), or null. */
const statusIn = (notes) => /HTTP (\d{3})\)?\s*$/.exec(notes ?? '')?.[1] ?? null

/** How each kind of record reads in the timeline. */
function describe (record, kind) {
  if (kind === 'recovered') return `${record.to_provider ?? '?'} recovered`
  if (kind === 'cooldown' && record.reason === 'cooldown:credentials_rejected') {
    const status = statusIn(record.notes)
    return `${record.from_provider ?? '?'}: key rejected${status === null ? '' : ` (HTTP ${status})`}, out of rotation until new credentials or the cooldown ends`
  }
  if (kind === 'cooldown' && record.reason === 'cooldown:rate_limited') {
    const until = untilIn(record.notes)
    return `${record.from_provider ?? '?'} rate limited${until === null ? '' : ` until ${clock(until)}`}`
  }
  if (kind === 'cooldown') return `${record.from_provider ?? '?'} started cooling down (${record.reason.slice('cooldown:'.length)})`
  if (kind === 'hedge') return `${record.to_provider ?? '?'} answered first; ${record.from_provider ?? '?'} was slow (hedged request)`
  if (kind === 'failover_failed') return `${record.from_provider ?? '?'} failed; no other provider to fail over to`
  if (kind === 'refusal') return `${record.from_provider ?? '?'} refuses ${record.reason.slice('refusal:'.length)} (HTTP 403)`
  if (kind === 'quota' && record.reason === 'rate_limited') {
    const until = untilIn(record.notes)
    return `${record.from_provider ?? '?'} said it has no requests left${until === null ? '' : ` until ${clock(until)}`}`
  }
  if (kind === 'quota') return `${record.from_provider ?? '?'} used up its quota`
  if (kind === 'check_failed') return `${record.from_provider ?? '?'} ${(record.notes ?? '').replace(/^Provider \d+ /, '')}`
  return `${record.from_provider ?? '—'} → ${record.to_provider ?? 'none'}`
}

function Timeline ({ history, now }) {
  if (history.length === 0) return html`<p class="muted">No rotations yet.</p>`
  return html`<ol class="timeline">${history.map((record) => {
    const kind = recordKind(record)
    const failover = kind === 'failover' || kind === 'failover_failed'
    const health = kind === 'cooldown' || kind === 'recovered' || kind === 'refusal' || kind === 'quota' || kind === 'check_failed'
    return html`<li key=${record.id} class=${`event event-${failover ? 'failover' : health ? 'health' : 'rotation'}`} data-kind=${kind}>
      <time datetime=${record.timestamp} title=${record.timestamp}>${clock(record.timestamp)}</time>
      <span class="what">${describe(record, kind)}</span>
      ${failover ? html`<span class="tag tag-failover">failover: ${record.reason}</span>` : health ? null : html`<span class="tag">${record.reason}</span>`}
      <span class="muted when">${ago(record.timestamp, now)}</span>
    </li>`
  })}</ol>`
}

/** What an RPC pool's requests are, in words; null for an `http` pool (every pool before RPC pools), which says nothing. */
function protocolName (protocol) {
  if (protocol === 'evm') return 'JSON-RPC (Ethereum)'
  if (protocol === 'jsonrpc') return 'JSON-RPC'
  return null
}

/** The pool's response cache: its policy, hit ratio and the upstream calls it saved (quota saved). */
function CacheFacts ({ cache }) {
  return html`<div data-cache="policy"><dt>Cache</dt><dd>${cache.ttl} s${cache.stale > 0 ? ` + ${cache.stale} s stale` : ''} <span class="muted">· ${cache.entries} ${cache.entries === 1 ? 'entry' : 'entries'}</span></dd></div>
    <div data-cache="ratio"><dt>Cache hit ratio</dt><dd class="num">${cache.ratio === null ? '—' : percent(cache.ratio)} <span class="muted">(${cache.saved} of ${cache.asked})</span></dd></div>
    <div data-cache="saved"><dt>Quota saved</dt><dd class="num">${calls(cache.saved)}</dd></div>`
}

/** Whether the pool has had streams on the answering process (an older service sends no `streams`). */
const hasStreams = (streams) => streams !== undefined && (streams.open > 0 || streams.failovers > 0 || streams.messages_to_clients > 0)

/** A pool's WebSocket streams on the process that answered, once it has had any: open streams, upstream connections, failovers. */
function StreamFacts ({ streams }) {
  const upstreams = streams.upstreams.reduce((sum, one) => sum + one.open, 0)
  return html`<div data-fact="streams"><dt><span class="explained" title="WebSocket streams through this pool on the instance that answered; several clients can share one upstream connection">Streams</span></dt>
    <dd class="num">${streams.open} open <span class="muted">· ${upstreams} upstream${upstreams === 1 ? '' : 's'}${streams.subscriptions > 0 ? ` · ${streams.subscriptions} subscription${streams.subscriptions === 1 ? '' : 's'}` : ''} · ${streams.failovers} failover${streams.failovers === 1 ? '' : 's'}</span></dd></div>`
}

const PALETTE = ['#0b5cad', '#b35900', '#1a7f37', '#8250df', '#cf222e', '#1b7c83', '#6e5494', '#946300']

function Charts ({ activity }) {
  const rotations = useMemo(() => [minuteSeconds(activity.minute_starts), activity.rotations, activity.failovers], [activity])
  const latency = useMemo(() => [minuteSeconds(activity.minute_starts), ...activity.latency.map((entry) => entry.latency_ms)], [activity])
  // Points drawn too: a minute with samples between two without is a point, not a line.
  const latencySeries = activity.latency.map((entry, i) => ({ label: entry.provider_name, stroke: PALETTE[i % PALETTE.length], width: 2, spanGaps: false, points: { show: true, size: 4 }, value: (_u, v) => v == null ? '—' : `${Math.round(v)} ms` }))
  return html`<div class="charts">
    <figure>
      <figcaption>Rotations per minute, last hour</figcaption>
      <${Chart} counts label="rotations and failovers per minute over the last hour" data=${rotations}
        series=${[{ label: 'rotations', stroke: '#0b5cad', fill: 'rgba(11,92,173,0.12)', width: 2 }, { label: 'failovers', stroke: '#cf222e', width: 2 }]} />
    </figure>
    <figure>
      <figcaption>Latency per provider (mean per minute)</figcaption>
      <${Chart} label="latency per provider over the last hour" data=${latency} series=${latencySeries} />
    </figure>
  </div>`
}

/** What the Rotations counter counts (the service's `total_rotations`), as its label's tooltip. */
const ROTATIONS_TITLE = 'Every provider choice since the pool was created: each rotate and failover call (one that stays on the same provider too) and each attempt of a proxied request.'

/**
 * Why the Rotations counter and the history's count differ: they count different
 * things (docs/api.md, the history's records), and the history keeps only its newest.
 */
function historyNote (rotations, kept) {
  return `Rotations (${rotations}) and the history (${kept}) differ: the history records each change of provider and of health ` +
    '(cooldowns, recoveries, refusals), and keeps only the newest records; a rotation that stays on the same provider and a proxied ' +
    'request served by its first choice count as rotations but leave no record.'
}

export function PoolPage ({ id, session }) {
  const now = useNow()
  const forPool = (type, data) => type === 'admin' || data.pool_id === id
  const pool = useLive([`/api/pools/${id}`, `/api/pools/${id}/next`, `/api/pools/${id}/history?limit=50`], forPool)
  const activity = useLive([`/api/pools/${id}/activity?minutes=60`], (type, data) => data.pool_id === id && (type === 'rotation' || type === 'failover'), { refreshMs: 30_000, minGapMs: 5000 })
  const admin = session.scope === 'admin'
  const client = admin || session.scope === 'client'
  const gone = html`<section aria-labelledby="pool-title"><p class="crumbs"><a href="#/">Pools</a> /</p>
    <h1 id="pool-title">Pool ${id}</h1><p class="error" role="alert">${pool.error?.message}: it was deleted, or never existed. <a href="#/">Back to the pools</a>.</p></section>`
  return html`<${Loaded} result=${pool} gone=${gone}>${([status, next, history]) => {
    const alerts = poolAlerts(status, now)
    const cache = cacheSummary(status)
    const current = status.current_provider
    return html`<section aria-labelledby="pool-title">
      <p class="crumbs"><a href="#/">Pools</a> /</p>
      <div class="title-row">
        <h1 id="pool-title">${status.name}</h1>
        ${client
          ? html`<div class="actions">
            <${ConfirmButton} name="rotate" label="Rotate" kind="primary" question=${`Rotate ${status.name} to its next provider now?`}
              run=${() => api('POST', `/api/pools/${id}/rotate`, { reason: 'manual' })} onDone=${pool.reload} />
            <${ConfirmButton} name="failover" label="Fail over" disabled=${current === null}
              question=${`Mark ${current?.name ?? 'the current provider'} as failed and fail over to another provider?`}
              run=${() => api('POST', `/api/pools/${id}/failover`, { failed_provider_id: current.provider_id, reason: 'operator' })} onDone=${pool.reload} />
          </div>`
          : null}
      </div>
      <dl class="facts facts-row">
        <div><dt>Category</dt><dd>${status.category}</dd></div>
        <div><dt>Strategy</dt><dd>${status.rotation_strategy}</dd></div>
        ${protocolName(status.policy?.protocol) === null ? null : html`<div data-fact="protocol"><dt>Protocol</dt><dd>${protocolName(status.policy.protocol)}</dd></div>`}
        <div><dt>Serving</dt><dd class="current">${current?.name ?? '—'}</dd></div>
        <div data-fact="rotations"><dt><span class="explained" title=${ROTATIONS_TITLE}>Rotations</span></dt><dd>${status.total_rotations} <span class="muted small">since created</span></dd></div>
        <div><dt>Last rotation</dt><dd>${ago(status.last_rotation, now)}</dd></div>
        <div><dt>Enabled</dt><dd>${status.enabled ? 'yes' : 'no'}</dd></div>
        ${cache === null ? null : html`<${CacheFacts} cache=${cache} />`}
        ${hasStreams(status.streams) ? html`<${StreamFacts} streams=${status.streams} />` : null}
      </dl>
      ${alerts.length > 0 ? html`<ul class="alerts">${alerts.map((alert) => html`<li key=${alert}>${alert}</li>`)}</ul>` : null}
      <p class="next" data-next=${next.provider_id ?? ''}><strong>Next:</strong> ${next.explanation}</p>
      <h2>Members</h2>
      <${Legend} />
      <div class="table-box">
        <table class="members">
          <thead><tr><th scope="col">Provider</th><th scope="col">Priority · weight</th><th scope="col">Health</th>${showsHeads(status) ? html`<th scope="col" data-column="head">Head</th>` : null}<th scope="col">Latency</th><th scope="col">Success</th><th scope="col">Quota</th><th scope="col">Last check</th><th scope="col">Enabled</th></tr></thead>
          <tbody>${status.members.map((member) => html`<${MemberRow} key=${member.member_id} pool=${status} member=${member} now=${now} admin=${admin} onDone=${pool.reload} />`)}</tbody>
        </table>
      </div>
      <h2>Last hour</h2>
      <${Loaded} result=${activity}>${([data]) => html`<${Charts} activity=${data} />`}<//>
      <h2>History <span class="muted small">(newest first, ${Math.min(history.total, history.history.length)} of ${history.total} kept)</span></h2>
      ${status.total_rotations === history.total ? null : html`<p class="muted small" data-history-note>${historyNote(status.total_rotations, history.total)}</p>`}
      <${Timeline} history=${history.history} now=${now} />
    </section>`
  }}<//>`
}
