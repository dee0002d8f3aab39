// Why: the page stays current without reloads. One stream of `/api/events` is
// read with fetch (EventSource cannot send a bearer header), parsed by
// eventsource-parser, and resumed with Last-Event-ID after a break. Pages load
// their data with `useLive`, which loads again when a matching event arrives
// (debounced) and every 15 s for what events do not carry (latency, counters).
import { createParser } from './vendor/eventsource-parser.js'
import { ApiError, authHeaders, get, tokenRefused } from './api.js'
import { useEffect, useRef, useState } from './ui.js'

const listeners = new Set()
const stateListeners = new Set()
let streamState = 'connecting'
let stopStream = null

function setState (state) {
  streamState = state
  for (const listener of stateListeners) listener(state)
}

function dispatch (type, data) {
  for (const listener of listeners) listener(type, data)
}

const MAX_RETRY_MS = 30_000

/** Starts the one event stream of the page (again after a sign-in). */
export function startEvents () {
  stopStream?.()
  const run = { stopped: false }
  let controller = null
  let lastId = null
  let retryMs = 2000
  let failures = 0
  stopStream = () => {
    run.stopped = true
    controller?.abort()
  }
  const loop = async () => {
    while (!run.stopped) {
      controller = new AbortController()
      let waitMs = null
      let ended = false
      try {
        const headers = { accept: 'text/event-stream', ...authHeaders() }
        if (lastId !== null) headers['last-event-id'] = lastId
        const response = await fetch('/api/events', { headers, signal: controller.signal })
        if (response.status === 401) {
          tokenRefused('Not authenticated')
          return
        }
        if (response.status === 429 || response.status === 503) waitMs = 1000 * Number(response.headers.get('retry-after') ?? 0)
        if (!response.ok || response.body === null) throw new ApiError(response.status, `events: ${response.status}`)
        // Whatever happened while the stream was down (or before it first connected: a
        // stream starts without an id to resume from) is read again: every page reloads once.
        dispatch('resync', {})
        failures = 0
        setState('live')
        const parser = createParser({
          onEvent (event) {
            if (event.id !== undefined) lastId = event.id
            let data = null
            try {
              data = JSON.parse(event.data)
            } catch {
              return
            }
            dispatch(event.event ?? 'message', data)
          },
          onRetry (ms) { retryMs = ms }
        })
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
        for (;;) {
          const { value, done } = await reader.read()
          if (done) break
          parser.feed(value)
        }
        ended = true
      } catch {
        // Aborted, refused or cut: tried again below unless stopped.
      }
      if (run.stopped) return
      if (ended) {
        // The service ended the stream itself (a shutdown, or an older service that sent a
        // long replay in pieces ending with `retry: 0`): back after the retry it asked for.
        await new Promise((resolve) => setTimeout(resolve, retryMs))
        continue
      }
      failures++
      setState('reconnecting')
      // The service's retry (at least 1 s), half as long again after each failure in a row (at most 30 s), or its Retry-After.
      const backoff = Math.min(MAX_RETRY_MS, Math.max(1000, retryMs) * 1.5 ** Math.min(failures - 1, 10))
      await new Promise((resolve) => setTimeout(resolve, waitMs !== null && waitMs > 0 ? waitMs : backoff))
    }
  }
  loop()
}

export function stopEvents () {
  stopStream?.()
  stopStream = null
}

/** Calls `listener(type, data)` for every event while the component is shown. */
export function useEvents (listener) {
  const latest = useRef(listener)
  latest.current = listener
  useEffect(() => {
    const forward = (type, data) => latest.current(type, data)
    listeners.add(forward)
    return () => listeners.delete(forward)
  }, [])
}

/** The stream's state: connecting, live or reconnecting. */
export function useStreamState () {
  const [state, setLocal] = useState(streamState)
  useEffect(() => {
    stateListeners.add(setLocal)
    return () => stateListeners.delete(setLocal)
  }, [])
  return state
}

/** The current time, ticking every `ms`. */
export function useNow (ms = 1000) {
  const [now, setNow] = useState(Date.now())
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms)
    return () => clearInterval(timer)
  }, [ms])
  return now
}

const RELOAD_DEBOUNCE_MS = 150

/**
 * Loads `paths` (GET, in parallel) and keeps them current: again when an event
 * passes `matches(type, data)` or the stream reconnects (debounced, and at most once
 * per `minGapMs`), and every `refreshMs`. The last good data stays shown while a
 * reload runs, so nothing jumps. A 404 means what the page shows is gone: the data is
 * dropped and nothing is asked again. Returns {data, error, gone, reload}.
 */
export function useLive (paths, matches = () => true, { refreshMs = 15_000, minGapMs = 500 } = {}) {
  const key = paths.join(' ')
  const [result, setResult] = useState({ data: null, error: null, gone: false })
  const timer = useRef(null)
  const generation = useRef(0)
  const lastStart = useRef(0)
  const gone = useRef(false)
  const load = useRef(null)
  load.current = async () => {
    if (gone.current) return
    const mine = ++generation.current
    lastStart.current = Date.now()
    try {
      const data = await Promise.all(paths.map((path) => get(path)))
      if (mine === generation.current) setResult({ data, error: null, gone: false })
    } catch (error) {
      if (mine !== generation.current) return
      if (error instanceof ApiError && error.status === 404) {
        gone.current = true
        setResult({ data: null, error, gone: true })
      } else {
        setResult((previous) => ({ data: previous.data, error, gone: false }))
      }
    }
  }
  const reload = () => {
    clearTimeout(timer.current)
    const wait = Math.max(RELOAD_DEBOUNCE_MS, lastStart.current + minGapMs - Date.now())
    timer.current = setTimeout(() => load.current(), wait)
  }
  useEffect(() => {
    gone.current = false
    setResult({ data: null, error: null, gone: false })
    load.current()
    const refresh = setInterval(() => load.current(), refreshMs)
    return () => {
      clearInterval(refresh)
      clearTimeout(timer.current)
      generation.current++
    }
  }, [key])
  useEvents((type, data) => { if (type === 'resync' || matches(type, data)) reload() })
  return { ...result, reload: () => load.current() }
}
