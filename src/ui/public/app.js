// Why: the page's shell. It asks the service who the caller is first: without
// tokens configured it opens at once; with them it asks for one (kept in
// sessionStorage for this tab only) and says plainly when it is refused. Then
// one event stream feeds every page, chosen by the URL's hash.
import { ApiError, get, onTokenRefused, token } from './api.js'
import { Notices } from './components.js'
import { startEvents, stopEvents, useStreamState } from './live.js'
import { Overview } from './overview.js'
import { PoolPage } from './pool.js'
import { ProvidersPage } from './providers.js'
import { StorePage } from './store.js'
import { html, render, useEffect, useRef, useState } from './ui.js'

/** The page a hash names: #/, #/pools/3, #/providers(?id=3), #/store. */
export function route (hash) {
  const [path, query = ''] = hash.replace(/^#/, '').split('?')
  const pool = /^\/pools\/(\d+)$/.exec(path)
  if (pool !== null) return { page: 'pool', id: Number(pool[1]) }
  if (path === '/providers') {
    const id = new URLSearchParams(query).get('id')
    return { page: 'providers', focus: id !== null && /^\d+$/.test(id) ? Number(id) : null }
  }
  if (path === '/store') return { page: 'store' }
  if (path === '' || path === '/') return { page: 'overview' }
  return { page: 'unknown', path }
}

function useRoute () {
  const [current, setCurrent] = useState(route(location.hash))
  useEffect(() => {
    const changed = () => {
      setCurrent(route(location.hash))
      window.scrollTo(0, 0)
    }
    addEventListener('hashchange', changed)
    return () => removeEventListener('hashchange', changed)
  }, [])
  return current
}

function SignIn ({ refusal, onSignedIn }) {
  const input = useRef(null)
  const [message, setMessage] = useState(refusal)
  const [busy, setBusy] = useState(false)
  useEffect(() => input.current?.focus(), [])
  const submit = async (event) => {
    event.preventDefault()
    const secret = input.current.value.trim()
    if (secret === '') {
      setMessage('Enter a token.')
      return
    }
    setBusy(true)
    token.set(secret)
    try {
      onSignedIn(await get('/api/session'))
    } catch (error) {
      token.clear()
      setMessage(error instanceof ApiError && error.status === 401
        ? `The service refused this token (${error.message}). Check it and try again.`
        : error.message)
      input.current.select()
    } finally {
      setBusy(false)
    }
  }
  return html`<main id="main" class="sign-in">
    <h1>sourcepool</h1>
    <form onSubmit=${submit} aria-describedby="sign-in-help">
      <p id="sign-in-help">This service asks for a token. Paste one of its AUTH_TOKENS secrets: it is kept in this tab only (sessionStorage) and sent as a bearer header.</p>
      <label for="token">Token</label>
      <input id="token" ref=${input} type="password" autocomplete="off" spellcheck="false" />
      ${message === null ? null : html`<p class="error" role="alert">${message}</p>`}
      <button type="submit" class="button button-primary" disabled=${busy}>${busy ? 'Checking…' : 'Open the dashboard'}</button>
    </form>
  </main>`
}

function Nav ({ current, session, onSignOut }) {
  const stream = useStreamState()
  const link = (href, page, label) => html`<a href=${href} aria-current=${current.page === page ? 'page' : undefined}>${label}</a>`
  return html`<header class="top">
    <a class="skip" href="#main" onClick=${(e) => { e.preventDefault(); document.getElementById('main')?.focus() }}>Skip to content</a>
    <span class="brand">sourcepool</span>
    <nav aria-label="pages">
      ${link('#/', 'overview', 'Pools')}
      ${link('#/providers', 'providers', 'Providers')}
      ${link('#/store', 'store', 'Chunks & v1')}
    </nav>
    <span class="session">
      <span class=${`stream stream-${stream}`} title="event stream">${stream === 'live' ? 'live' : stream}</span>
      <span class="who" data-scope=${session.scope}>${session.actor} · ${session.scope}</span>
      ${session.tokens_required ? html`<button type="button" class="link" onClick=${onSignOut}>Sign out</button>` : null}
    </span>
  </header>`
}

function Page ({ current, session }) {
  if (current.page === 'pool') return html`<${PoolPage} key=${current.id} id=${current.id} session=${session} />`
  if (current.page === 'providers') return html`<${ProvidersPage} session=${session} focus=${current.focus} />`
  if (current.page === 'store') return html`<${StorePage} />`
  if (current.page === 'unknown') return html`<h1>No such page</h1><p>Nothing is shown at <code>#${current.path}</code>. <a href="#/">Back to the pools</a>.</p>`
  return html`<${Overview} />`
}

function App () {
  const [state, setState] = useState({ phase: 'checking' })
  const current = useRoute()
  const check = async () => {
    try {
      const session = await get('/api/session')
      // Tokens are required and this tab has none yet.
      if (session.scope === null) setState({ phase: 'sign-in', refusal: null })
      else setState({ phase: 'ready', session })
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) {
        const had = token.get() !== null
        token.clear()
        setState({ phase: 'sign-in', refusal: had ? 'The token this tab kept is no longer accepted. Enter a token.' : null })
      } else {
        setState({ phase: 'error', message: error.message })
      }
    }
  }
  useEffect(() => { check() }, [])
  // A token refused after sign-in (revoked, or the service restarted without it): back to the prompt.
  useEffect(() => onTokenRefused((detail) => {
    stopEvents()
    token.clear()
    setState({ phase: 'sign-in', refusal: `The service no longer accepts this tab's token (${detail}). Enter a token.` })
  }), [])
  useEffect(() => {
    if (state.phase !== 'ready') return
    startEvents()
    return stopEvents
  }, [state.phase, state.session?.actor])
  if (state.phase === 'checking') return html`<main id="main" class="center"><p class="muted">Connecting…</p></main>`
  if (state.phase === 'error') return html`<main id="main" class="center"><p class="error" role="alert">${state.message}</p><button type="button" class="button button-primary" onClick=${check}>Try again</button></main>`
  if (state.phase === 'sign-in') return html`<${SignIn} refusal=${state.refusal} onSignedIn=${(session) => setState({ phase: 'ready', session })} />`
  const signOut = () => {
    token.clear()
    setState({ phase: 'sign-in', refusal: null })
  }
  return html`<${Nav} current=${current} session=${state.session} onSignOut=${signOut} />
    <main id="main" tabindex="-1"><${Page} current=${current} session=${state.session} /></main>
    <${Notices} />`
}

render(html`<${App} />`, document.getElementById('app'))
