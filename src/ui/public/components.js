// Why: the pieces every page is built from, written once: the health dot and
// its countdown (a rate limit and a rejected key told apart from a failure),
// the quota bar, charts (uPlot), a confirmed action that shows the service's
// answer or its error text, and the notice line.
import UPlot from './vendor/uplot.js'
import { ApiError } from './api.js'
import { COOLDOWN_LABEL, STATE_LABEL, clock, cooldownKind, duration, html, memberState, quotaShare, secondsUntil, useEffect, useRef, useState } from './ui.js'

/** What a member's cooldown reads as, and the longer sentence of its tooltip. */
function cooldownWords (member, kind, now) {
  if (kind === 'rate_limited') return { label: `${COOLDOWN_LABEL.rate_limited} until ${clock(member.cooldown_until)}`, more: ': the provider said it takes no more requests until then' }
  if (kind === 'credentials_rejected') return { label: COOLDOWN_LABEL.credentials_rejected, more: ': the provider refused our credentials (HTTP 401/402); new auth_headers bring it back at once' }
  const state = memberState(member, now)
  const why = state === 'cooling_down' && member.cooldown_reason ? ` (${member.cooldown_reason})` : ''
  return { label: `${STATE_LABEL[state]}${why}`, more: '' }
}

/**
 * A coloured dot with its state as text beside it (colour is never the only sign).
 * A rate limit and rejected credentials have their own words, colour and shape.
 */
export function Health ({ member, now, compact = false }) {
  const state = memberState(member, now)
  const kind = cooldownKind(member, now)
  const left = state === 'cooling_down' ? secondsUntil(member.cooldown_until, now) : null
  const { label, more } = cooldownWords(member, kind, now)
  const look = kind ?? state
  const title = `${member.provider_name ?? `provider ${member.provider_id}`}: ${label}${more}${left === null ? '' : `, ${duration(left)} left`}`
  if (compact) return html`<span class="dot dot-${look}" role="img" aria-label=${title} title=${title} data-state=${state} data-cooldown=${kind ?? undefined} data-provider=${member.provider_id}></span>`
  return html`<span class="health" data-state=${state} data-cooldown=${kind ?? undefined} data-provider=${member.provider_id} title=${kind === null ? undefined : title}>
    <span class="dot dot-${look}" aria-hidden="true"></span>
    <span class=${kind === null ? undefined : `tag tag-${kind}`}>${label}</span>
    ${left === null ? null : html`<span class="countdown" aria-label=${`${left} seconds left`}>${duration(left)}</span>`}
  </span>`
}

/** Used against limit (in credits, for a quota that counts them), with when the window resets; nothing without a quota. */
export function QuotaBar ({ quota }) {
  const share = quotaShare(quota)
  if (share === null) return html`<span class="muted">no quota</span>`
  const level = share >= 0.9 ? 'high' : share >= 0.7 ? 'mid' : 'low'
  return html`<span class="quota">
    <span class="bar" role="meter" aria-valuemin="0" aria-valuemax=${quota.limit} aria-valuenow=${quota.used} aria-label="quota used">
      <span class=${`fill fill-${level}`} style=${{ width: `${Math.min(100, share * 100)}%` }}></span>
    </span>
    <span class="quota-text">${quota.used}/${quota.limit}${quota.unit === 'credits' ? ' credits' : ''} · resets ${clock(quota.resets_at)}</span>
  </span>`
}

const notices = new Set()

/** Shows a short message in the page's notice line (an error stays until replaced). */
export function notify (text, kind = 'ok') {
  for (const listener of notices) listener({ text, kind, at: Date.now() })
}

/** The notice line: a fixed, live region, so messages neither move the page nor go unheard. */
export function Notices () {
  const [notice, setNotice] = useState(null)
  useEffect(() => {
    notices.add(setNotice)
    return () => notices.delete(setNotice)
  }, [])
  useEffect(() => {
    if (notice === null || notice.kind === 'error') return
    const timer = setTimeout(() => setNotice(null), 6000)
    return () => clearTimeout(timer)
  }, [notice])
  return html`<div class="notices" role="status" aria-live="polite">
    ${notice === null
      ? null
      : html`<p class=${`notice notice-${notice.kind}`}>${notice.text}
          <button type="button" class="link" onClick=${() => setNotice(null)} aria-label="Dismiss">×</button></p>`}
  </div>`
}

let dialogs = 0

/**
 * A button whose action runs only once confirmed in a dialog. What the dialog asks
 * and what it runs are taken when it opens, so live data changing underneath cannot
 * change what is confirmed. The service's answer (`message`, or what `describe`
 * makes of it) goes to the notice line; a refusal's text is shown in the dialog,
 * which stays open (and cannot be closed while the request is under way).
 */
export function ConfirmButton ({ label, question, confirmLabel = label, run, describe, onDone, kind = 'secondary', disabled = false, name }) {
  const dialog = useRef(null)
  const id = useRef(null)
  if (id.current === null) id.current = `confirm-${++dialogs}`
  const [pending, setPending] = useState(null)
  const [error, setError] = useState(null)
  const [busy, setBusy] = useState(false)
  const open = () => {
    setError(null)
    setPending({ question, run, describe, onDone })
    dialog.current.showModal()
  }
  const confirm = async () => {
    if (pending === null || busy) return
    setBusy(true)
    setError(null)
    try {
      const answer = await pending.run()
      dialog.current.close()
      notify(pending.describe === undefined ? (answer?.message ?? 'Done') : pending.describe(answer))
      pending.onDone?.(answer)
    } catch (caught) {
      setError(caught instanceof ApiError ? caught.message : String(caught))
    } finally {
      setBusy(false)
    }
  }
  return html`<button type="button" class=${`button button-${kind}`} onClick=${open} disabled=${disabled} data-action=${name}>${label}</button>
    <dialog ref=${dialog} class="confirm" aria-labelledby=${id.current} onCancel=${(e) => { if (busy) e.preventDefault() }} onClose=${() => setError(null)}>
      <p id=${id.current}>${pending?.question}</p>
      ${error === null ? null : html`<p class="error" role="alert">Refused: ${error}</p>`}
      <div class="dialog-buttons">
        <button type="button" class="button button-secondary" onClick=${() => dialog.current.close()} disabled=${busy}>${error === null ? 'Cancel' : 'Close'}</button>
        <button type="button" class="button button-primary" onClick=${confirm} disabled=${busy} data-confirm=${name}>${busy ? 'Working…' : confirmLabel}</button>
      </div>
    </dialog>`
}

/** Axis steps for counts: whole numbers only. */
const COUNT_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 100_000, 1_000_000]

export function Chart ({ series, data, height = 180, label, sparkline = false, width, counts = false }) {
  const box = useRef(null)
  const plot = useRef(null)
  useEffect(() => {
    const element = box.current
    const size = () => ({ width: width ?? Math.max(100, element.clientWidth), height })
    const options = sparkline
      ? { ...size(), legend: { show: false }, cursor: { show: false }, select: { show: false }, axes: [{ show: false }, { show: false }], scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } }, series: [{}, ...series] }
      : { ...size(), series: [{}, ...series], scales: { y: { range: (_u, min, max) => [Math.min(0, min ?? 0), Math.max(1, max ?? 1)] } }, axes: [{}, counts ? { size: 56, incrs: COUNT_STEPS } : { size: 56 }] }
    plot.current = new UPlot(options, data, element)
    const observer = width === undefined ? new ResizeObserver(() => plot.current.setSize(size())) : null
    observer?.observe(element)
    return () => {
      observer?.disconnect()
      plot.current.destroy()
      plot.current = null
    }
  }, [series.length, series.map((s) => s.label).join('|'), sparkline])
  useEffect(() => { plot.current?.setData(data) }, [data])
  return html`<div class=${sparkline ? 'sparkline' : 'chart'} ref=${box} role="img" aria-label=${label} style=${sparkline ? { width: `${width}px`, height: `${height}px` } : { minHeight: `${height + 40}px` }}></div>`
}

/** Minute starts (ISO) as uPlot's x values (seconds). */
export const minuteSeconds = (starts) => starts.map((iso) => Date.parse(iso) / 1000)

/** A section's loading, error or content, in a box that keeps its height; `gone` is shown when what it shows no longer exists (404). */
export function Loaded ({ result, children, gone }) {
  if (result.gone) return gone ?? html`<p class="error" role="alert">${result.error.message}</p>`
  if (result.data === null && result.error !== null) return html`<p class="error" role="alert">Could not load: ${result.error.message}</p>`
  if (result.data === null) return html`<p class="muted">Loading…</p>`
  return html`${result.error === null ? null : html`<p class="error" role="alert">Showing earlier data: ${result.error.message}</p>`}${children(result.data)}`
}
