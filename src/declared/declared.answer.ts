/**
 * A plan's answer, made a piece at a time: a plan or apply of thousands of pools
 * must not hold the event loop while its changes are described, fingerprinted and
 * written out (one piece is about a millisecond; db/work.ts runs the pieces inside
 * a unit of work with `breathing`, outside one with `paced`).
 *
 * The fingerprint is the SHA-256 of exactly what a reviewer saw: the changes
 * (describeStep: credentials masked, a changed one marked `*** (changed)`) as one
 * JSON array, hashed as it is written. No credential goes into it, so it cannot be
 * used to guess one, however short; a change of a credential's value still changes
 * it, through its marker.
 */
import { createHash } from 'node:crypto'
import type { Pieces } from '../db/work.js'
import { describeStep, type Step } from './declared.rules.js'
import type { ChangeValue, PlanValue } from './declared.schemas.js'

/** Changes described, or written out, per piece. */
const PIECE = 250

/** A plan's changes as shown, counted, and fingerprinted. */
export interface Described {
  readonly changes: readonly ChangeValue[]
  readonly summary: PlanValue['summary']
  readonly fingerprint: string
}

/** Describes `steps` a piece at a time (see the header). */
export function * describing (steps: readonly Step[]): Pieces<Described> {
  // JSON.stringify of an array is its items' JSON between brackets, joined by commas.
  const hash = createHash('sha256').update('[')
  const changes: ChangeValue[] = []
  const summary = { create: 0, update: 0, delete: 0 }
  for (let from = 0; from < steps.length; from += PIECE) {
    const texts: string[] = []
    for (let i = from; i < Math.min(from + PIECE, steps.length); i++) {
      const change = describeStep(steps[i] as Step)
      changes.push(change)
      summary[change.action]++
      texts.push(JSON.stringify(change))
    }
    hash.update(`${from === 0 ? '' : ','}${texts.join(',')}`)
    yield
  }
  return { changes, summary, fingerprint: hash.update(']').digest('hex') }
}

/** The answer of a plan (`applied` false) or an apply. */
export function planValue ({ changes, summary, fingerprint }: Described, applied: boolean): PlanValue {
  return { changes: changes as ChangeValue[], summary, applied, fingerprint }
}

/**
 * The answer's JSON text in pieces, as the route's schema (Plan) would write it: an
 * answer of megabytes (every member of thousands of pools created) is sent as it
 * is written, a piece each time the connection takes more.
 */
export function * planJson (plan: PlanValue): Generator<string, void, void> {
  const { changes } = plan
  for (let from = 0; from < changes.length; from += PIECE) {
    const texts = changes.slice(from, from + PIECE).map((change) => JSON.stringify(change))
    yield `${from === 0 ? '{"changes":[' : ','}${texts.join(',')}`
  }
  yield `${changes.length === 0 ? '{"changes":[' : ''}],"summary":${JSON.stringify(plan.summary)},"applied":${String(plan.applied)},"fingerprint":${JSON.stringify(plan.fingerprint)}}`
}
