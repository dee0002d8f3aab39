// Why: the page stays current without reloads. One stream of `/api/events` is
// read with fetch (EventSource cannot send a bearer header), parsed by
// eventsource-parser, and resumed with Last-Event-ID after a break. Pages load
// their data with `useLive`, which loads again when a matching event arrives
// (debounced) and every 15 s for what events do not carry (latency, counters).
import { createParser } from './vendor/eventsource-parser.js'
import { authHeaders, get } from './api.js'
import { useEffect, useRef, useState } from './ui.js'

const listeners = new Set()
const stateListeners = new Set()
let streamState = 'connecting'
let stopStream = null

function setState (state) {
  streamState = state
  for (const listener of stateListeners) listener(state)
}

/** Starts the one event stream of the page (again after a sign-in). */
export function startEvents () {
  stopStream?.()
  const run = { stopped: false }
  let controller = null
  let lastId = null
  let retryMs = 2000
  stopStream = () => {
    run.stopped = true
    controller?.abort()
  }
  const loop = async () => {
    while (!run.stopped) {
      controller = new AbortController()
      try {
        const headers = { accept: 'text/event-stream', ...authHeaders() }
        if (lastId !== null) headers['last-event-id'] = lastId
        const response = await fetch('/api/events', { headers, signal: controller.signal })
        if (!response.ok || response.body === null) throw new Error(`events: ${response.status}`)
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
            for (const listener of listeners) listener(event.event ?? 'message', data)
          },
          onRetry (ms) { retryMs = ms }
        })
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
        for (;;) {
          const { value, done } = await reader.read()
          if (done) break
          parser.feed(value)
        }
      } catch {
        // Aborted, refused or cut: tried again below unless stopped.
      }
      if (run.stopped) return
      setState('reconnecting')
      await new Promise((resolve) => setTimeout(resolve, retryMs))
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
const REFRESH_MS = 15_000

/**
 * Loads `paths` (GET, in parallel) and keeps them current: again when an event
 * passes `matches(type, data)`, and every 15 s. The last good data stays shown
 * while a reload runs, so nothing jumps. Returns {data, error, reload}.
 */
export function useLive (paths, matches = () => true) {
  const key = paths.join(' ')
  const [result, setResult] = useState({ data: null, error: null })
  const timer = useRef(null)
  const generation = useRef(0)
  const load = useRef(null)
  load.current = async () => {
    const mine = ++generation.current
    try {
      const data = await Promise.all(paths.map((path) => get(path)))
      if (mine === generation.current) setResult({ data, error: null })
    } catch (error) {
      if (mine === generation.current) setResult((previous) => ({ data: previous.data, error }))
    }
  }
  const reload = () => {
    clearTimeout(timer.current)
    timer.current = setTimeout(() => load.current(), RELOAD_DEBOUNCE_MS)
  }
  useEffect(() => {
    setResult({ data: null, error: null })
    load.current()
    const refresh = setInterval(() => load.current(), REFRESH_MS)
    return () => {
      clearInterval(refresh)
      clearTimeout(timer.current)
      generation.current++
    }
  }, [key])
  useEvents((type, data) => { if (matches(type, data)) reload() })
  return { ...result, reload: () => load.current() }
}
