/**
 * Asks `/healthz` again and again while a long request runs (issue #26: nothing may
 * hold the event loop for long), each time in a later turn of the event loop, as a
 * client's next request would come, and notes the database's change token at each
 * answer. On SQLite a token other than those before and after the request means the
 * answer came while its transaction was open, part of its rows written; PostgreSQL
 * has no token, and every answer while the request runs counts.
 */
import type { TestApp } from './helpers.js'

/** One `/healthz` answer: its status, whether the request still ran, the change token then. */
export interface HealthzAnswer { readonly status: number, readonly during: boolean, readonly token: string | null }

export interface HealthzProbe {
  readonly answers: readonly HealthzAnswer[]
  /** The change token before the request (null on PostgreSQL). */
  readonly before: string | null
}

/**
 * Probes until `running` settles (and awaits it); `whenInside` is called once, at
 * the first answer that came while the request had written part of its rows
 * (SQLite: the token moved) or, on PostgreSQL, at the first answer while it runs.
 */
export async function probeHealthz (t: TestApp, running: Promise<unknown>, whenInside?: () => void): Promise<HealthzProbe> {
  const state = { settled: false }
  running.finally(() => { state.settled = true }).catch(() => {})
  const before = t.database.changeToken()
  const answers: HealthzAnswer[] = []
  let told = false
  while (!state.settled) {
    const answer = await t.app.inject({ method: 'GET', url: '/healthz' })
    const token = t.database.changeToken()
    answers.push({ status: answer.statusCode, during: !state.settled, token })
    if (!told && !state.settled && (token === null || token !== before)) {
      told = true
      whenInside?.()
    }
    await new Promise((resolve) => setImmediate(resolve))
  }
  await running.catch(() => {})
  return { answers, before }
}

/** True when some answer (200) came while the request ran, on SQLite with its transaction open (see the header). */
export function answeredInside (t: TestApp, { answers, before }: HealthzProbe): boolean {
  const after = t.database.changeToken()
  return answers.some((a) => a.status === 200 && a.during && (a.token === null || (a.token !== before && a.token !== after)))
}
