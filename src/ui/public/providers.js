// Why: what the service knows about each provider: where it points, which
// credentials it sends (by name only: the API never returns their values), its
// quota and health check, and the resources it refuses, each clearable.
import { api } from './api.js'
import { ConfirmButton, Loaded } from './components.js'
import { useLive, useNow } from './live.js'
import { ago, dateTime, duration, html, secondsUntil, useEffect } from './ui.js'

function Refusals ({ provider, admin, now }) {
  // One request per provider: asked again on a refusal or admin event (at most twice a second)
  // and every minute; the time left until each is forgotten counts down in the page.
  const refusals = useLive([`/api/providers/${provider.provider_id}/refusals`], (type) => type === 'admin' || type === 'refusal', { refreshMs: 60_000 })
  return html`<${Loaded} result=${refusals}>${([list]) => list.refusals.length === 0
    ? html`<p class="muted">Refuses nothing.</p>`
    : html`<ul class="refusals">${list.refusals.map((refusal) => html`<li key=${refusal.resource} data-resource=${refusal.resource}>
        <code>${refusal.resource}</code>
        <span class="muted">refused since ${dateTime(refusal.first_seen)}, forgotten in ${duration(secondsUntil(refusal.expires_at, now))}</span>
        ${admin
          ? html`<${ConfirmButton} name=${`clear-${provider.provider_id}-${refusal.resource}`} label="Clear"
              question=${`Forget that ${provider.name} refuses ${refusal.resource}? The proxy will send it requests for it again.`}
              run=${() => api('DELETE', `/api/providers/${provider.provider_id}/refusals/${encodeURIComponent(refusal.resource.replace(/^\//, ''))}`)}
              onDone=${refusals.reload} />`
          : null}
      </li>`)}</ul>`}<//>`
}

/** A rate limit as read: `600 requests per minute`, `100000 credits per day`. */
const quotaText = (limit) => limit.credits === undefined ? `${limit.requests} per ${limit.per}` : `${limit.credits} credits per ${limit.per}`

function ProviderCard ({ provider, admin, now, focused }) {
  const check = provider.health_check
  const last = provider.last_check
  const credentials = provider.auth_headers === null ? [] : Object.keys(provider.auth_headers)
  return html`<article class=${`card${focused ? ' card-focus' : ''}`} id=${`provider-${provider.provider_id}`} data-provider=${provider.provider_id} aria-labelledby=${`provider-title-${provider.provider_id}`} tabindex=${focused ? '-1' : undefined}>
    <header class="card-head">
      <h2 id=${`provider-title-${provider.provider_id}`}>${provider.name}</h2>
      ${provider.category === null ? null : html`<span class="tag" title=${provider.category}>${provider.category}</span>`}
    </header>
    <dl class="facts">
      <div><dt>Base URL</dt><dd class="url">${provider.base_url ?? html`<span class="muted">none (not proxied)</span>`}</dd></div>
      <div><dt>Credentials</dt><dd>${credentials.length === 0 ? html`<span class="muted">none</span>` : credentials.map((name) => html`<code key=${name} class="credential">${name}</code> `)}</dd></div>
      <div><dt>Quota</dt><dd>${provider.rate_limit === null ? html`<span class="muted">none</span>` : quotaText(provider.rate_limit)}</dd></div>
      ${provider.method_costs == null ? null : html`<div><dt>Method costs</dt><dd>${Object.entries(provider.method_costs).map(([method, cost]) => html`<code key=${method}>${method}</code> ${cost} `)}</dd></div>`}
      <div><dt>Timeout</dt><dd>${provider.timeout_ms === null ? 'default' : `${provider.timeout_ms} ms`}</dd></div>
      <div><dt>Health check</dt><dd>${check === null
        ? html`<span class="muted">none</span>`
        : html`<code>${check.path}</code> every ${check.interval_s} s, ${check.timeout_ms} ms timeout, expects ${check.expect_status.join(', ')}`}</dd></div>
      ${check === null
? null
: html`<div><dt>Last check</dt><dd>${last === null
        ? html`<span class="muted">not yet</span>`
        : html`<span class=${last.ok ? 'ok-text' : 'alert-text'}>${last.ok ? 'passed' : 'failed'}</span>${last.status_code == null ? '' : ` (${last.status_code})`}${last.error ? `: ${last.error}` : ''}${last.latency_ms == null ? '' : `, ${Math.round(last.latency_ms)} ms`} <span class="muted">${ago(last.at, now)}</span>`}</dd></div>`}
    </dl>
    <h3>Refused resources</h3>
    <${Refusals} provider=${provider} admin=${admin} now=${now} />
  </article>`
}

export function ProvidersPage ({ session, focus }) {
  const now = useNow()
  const providers = useLive(['/api/providers'], (type) => type === 'admin')
  const ready = providers.data !== null
  useEffect(() => {
    if (!ready || focus === null) return
    const card = document.getElementById(`provider-${focus}`)
    card?.scrollIntoView({ block: 'start' })
    card?.focus()
  }, [ready, focus])
  return html`<section aria-labelledby="providers-title">
    <h1 id="providers-title">Providers</h1>
    <${Loaded} result=${providers}>${([list]) => list.length === 0
      ? html`<p class="empty">No providers yet.</p>`
      : html`<div class="cards cards-wide">${list.map((provider) => html`<${ProviderCard} key=${provider.provider_id} provider=${provider} admin=${session.scope === 'admin'} now=${now} focused=${focus === provider.provider_id} />`)}</div>`}<//>
  </section>`
}
