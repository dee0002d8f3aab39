// Why: the two other things the service keeps: the chunk store's embedding
// models (how many chunks, how many numbers each), and the /api/v1 family's
// registration report with its shares, checked against the live router.
import { Loaded } from './components.js'
import { useLive } from './live.js'
import { html, percent } from './ui.js'

const STATUSES = ['registered', 'partial', 'unregistered']

export function StorePage () {
  const models = useLive(['/api/chunk-models'], (type) => type === 'admin')
  const report = useLive(['/api/v1/status/endpoints'], () => false)
  return html`<section aria-labelledby="store-title">
    <h1 id="store-title">Chunk store and /api/v1</h1>
    <h2>Embedding models</h2>
    <${Loaded} result=${models}>${([list]) => list.models.length === 0
      ? html`<p class="empty">No chunks stored yet.</p>`
      : html`<div class="table-box"><table class="models">
          <thead><tr><th scope="col">Model</th><th scope="col" class="num">Dimensions</th><th scope="col" class="num">Chunks</th></tr></thead>
          <tbody>${list.models.map((model) => html`<tr key=${model.embedding_model}><th scope="row" data-label="Model"><code>${model.embedding_model}</code></th><td class="num" data-label="Dimensions">${model.embedding_dim}</td><td class="num" data-label="Chunks">${model.chunk_count}</td></tr>`)}</tbody>
        </table></div>
        <p class="muted">${list.total} model${list.total === 1 ? '' : 's'}, ${list.models.reduce((sum, model) => sum + model.chunk_count, 0)} chunks.</p>`}<//>
    <h2>/api/v1 routes</h2>
    <${Loaded} result=${report}>${([status]) => html`
      <p>${status.total} routes. ${status.consistent ? html`<span class="ok-text">The live router matches the catalogue.</span>` : html`<strong class="alert-text">The live router does not match the catalogue.</strong>`}</p>
      <div class="shares" role="img" aria-label=${STATUSES.map((s) => `${s} ${percent(status.by_status[s].share)}`).join(', ')}>
        ${STATUSES.map((s) => html`<span key=${s} class=${`share share-${s}`} style=${{ flexGrow: Math.max(status.by_status[s].count, 0.0001) }}></span>`)}
      </div>
      <ul class="share-legend">${STATUSES.map((s) => html`<li key=${s}><span class=${`swatch share-${s}`}></span>${s}: ${status.by_status[s].count} (${percent(status.by_status[s].share)})</li>`)}</ul>
      <div class="table-box"><table class="routes">
        <thead><tr><th scope="col">Method</th><th scope="col">Path</th><th scope="col">Status</th><th scope="col">Mounted</th><th scope="col">Purpose</th></tr></thead>
        <tbody>${status.routes.map((route) => html`<tr key=${`${route.method} ${route.path}`}>
          <td data-label="Method">${route.method}</td><th scope="row" data-label="Path"><code>${route.path}</code></th>
          <td data-label="Status"><span class=${`tag tag-${route.status}`}>${route.status}</span></td>
          <td data-label="Mounted">${route.mounted ? 'yes' : 'no'}</td><td data-label="Purpose">${route.purpose}</td></tr>`)}</tbody>
      </table></div>`}<//>
  </section>`
}
