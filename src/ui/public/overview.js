// Why: the page an operator opens first. Every pool as a card: strategy, the
// provider serving it, members as health dots, its response cache (hit ratio,
// quota saved) when it has one, rotations per minute over the last hour, and
// alerts for what needs a person (every member down, a quota nearly used up, a
// key rejected) on one line of fixed height, so a card never grows when one appears.
import { Chart, Health, Loaded, minuteSeconds } from './components.js'
import { useLive, useNow } from './live.js'
import { COOLDOWN_LABEL, cacheSummary, calls, cooldownKind, html, memberState, percent, quotaShare, useMemo } from './ui.js'

/** What needs a person in a pool: every member down, a quota above 90 %, a key the provider rejects. */
export function poolAlerts (pool, now) {
  const alerts = []
  const states = pool.members.map((member) => memberState(member, now))
  if (pool.members.length === 0) alerts.push('no members')
  else if (!states.some((state) => state === 'healthy' || state === 'probing')) alerts.push('every member is down')
  for (const member of pool.members) {
    const share = quotaShare(member.quota)
    if (share !== null && share > 0.9) alerts.push(`${member.provider_name}: ${percent(share)} of its quota used`)
    if (cooldownKind(member, now) === 'credentials_rejected') alerts.push(`${member.provider_name}: ${COOLDOWN_LABEL.credentials_rejected}`)
  }
  if (!pool.enabled) alerts.push('pool disabled')
  return alerts
}

function PoolCard ({ pool, activity, now }) {
  const alerts = poolAlerts(pool, now)
  const cache = cacheSummary(pool)
  const rotations = activity?.rotations
  const perMinute = useMemo(() => activity === undefined ? null : [minuteSeconds(activity.minute_starts), activity.rotations], [activity])
  const lastHour = rotations === undefined ? null : rotations.reduce((sum, n) => sum + n, 0)
  return html`<article class=${`card${alerts.length > 0 ? ' card-alert' : ''}`} data-pool=${pool.pool_id} aria-labelledby=${`pool-${pool.pool_id}`}>
    <header class="card-head">
      <h2 id=${`pool-${pool.pool_id}`}><a href=${`#/pools/${pool.pool_id}`}>${pool.name}</a></h2>
      <span class="tag" title=${pool.category}>${pool.category}</span>
    </header>
    <dl class="facts">
      <div><dt>Strategy</dt><dd>${pool.rotation_strategy}</dd></div>
      <div><dt>Serving</dt><dd class="current">${pool.current_provider?.name ?? '—'}</dd></div>
      <div><dt>Members</dt><dd class="dots">${pool.members.length === 0 ? html`<span class="muted">none</span>` : pool.members.map((member) => html`<${Health} key=${member.member_id} member=${member} now=${now} compact />`)}</dd></div>
      ${cache === null
        ? null
        : html`<div data-cache><dt>Cache hits</dt><dd class="num cache-ratio" title=${`${cache.saved} of ${cache.asked} proxied requests answered from the cache`}>${cache.ratio === null ? '—' : percent(cache.ratio)}</dd></div>
          <div data-cache><dt>Quota saved</dt><dd class="num cache-saved" title="upstream calls the cache answered instead (hits and stale answers)">${calls(cache.saved)}</dd></div>`}
      <div><dt>Rotations, last hour</dt><dd class="spark">
        ${perMinute === null
          ? html`<span class="muted">—</span>`
          : html`<${Chart} sparkline width=${120} height=${28} data=${perMinute} series=${[{ label: 'rotations', stroke: '#0b5cad', fill: 'rgba(11,92,173,0.15)' }]} label=${`${lastHour} rotations in the last hour`} />
            <span class="spark-total">${lastHour}</span>`}
      </dd></div>
    </dl>
    <p class=${`card-alerts${alerts.length === 0 ? '' : ' card-alerts-on'}`} title=${alerts.join('\n')}>${alerts.length === 0
      ? null
      : html`<span class="visually-hidden">Alerts: </span>${alerts[0]}${alerts.length > 1 ? ` (+${alerts.length - 1} more)` : ''}`}</p>
  </article>`
}

export function Overview () {
  const now = useNow()
  const pools = useLive(['/api/pools'])
  // The last hour's counts read every pool's history in it: on a timer, not on every event.
  const activity = useLive(['/api/activity?minutes=60'], () => false, { refreshMs: 30_000 })
  const byPool = useMemo(() => new Map((activity.data?.[0]?.pools ?? []).map((entry) => [entry.pool_id, { ...entry, minute_starts: activity.data[0].minute_starts }])), [activity.data])
  return html`<section aria-labelledby="overview-title">
    <h1 id="overview-title">Pools</h1>
    <${Loaded} result=${pools}>${([list]) => {
      const down = list.pools.filter((pool) => poolAlerts(pool, now).length > 0)
      return html`
        <p class="summary">${list.total} pool${list.total === 1 ? '' : 's'}${down.length > 0 ? html` · <strong class="alert-text">${down.length} need${down.length === 1 ? 's' : ''} attention</strong>` : ' · all serving'}</p>
        <${Legend} />
        ${list.pools.length === 0
          ? html`<p class="empty">No pools yet. Create one through the API or a declared file (see the README).</p>`
          : html`<div class="cards">${list.pools.map((pool) => html`<${PoolCard} key=${pool.pool_id} pool=${pool} activity=${byPool.get(pool.pool_id)} now=${now} />`)}</div>`}`
    }}<//>
  </section>`
}

export function Legend () {
  return html`<p class="legend" aria-hidden="true">
    ${['healthy', 'probing', 'cooling_down', 'disabled'].map((state) => html`<span key=${state}><span class=${`dot dot-${state}`}></span>${state.replace('_', ' ')}</span>`)}
    ${Object.entries(COOLDOWN_LABEL).map(([kind, label]) => html`<span key=${kind}><span class=${`dot dot-${kind}`}></span>${label}</span>`)}
  </p>`
}
