/**
 * An `evm` pool's broadcast of sent transactions (issue 36 item 4, pool field
 * `broadcast_writes`): an `eth_sendRawTransaction` goes to every eligible member at
 * once (at most MAX_BROADCAST), so that it reaches the network even when one node
 * drops it, and the client gets the first acceptance: a `result`, or a node's
 * "already known", which rpc-answer.ts has already turned into the transaction's hash.
 * When none accepts, the client gets the first JSON-RPC error a node answered (the
 * node refused that transaction: "nonce too low", "insufficient funds"), else another
 * answer of a provider, else the proxy's usual failure (502, then 504, then 503).
 *
 * Each member gets a copy of the request whose `rpc.avoid` (forward.ts) is every other
 * member's provider, so the copy runs the normal path to that one member: its choice
 * rules, quota, health, accounting, judging and log line, sent once as any write (a
 * copy is never hedged nor retried elsewhere: there is nowhere else for it to go).
 * The members sent to are the enabled ones with a base URL whose provider allows the
 * method and that are eligible now (rules/eligibility.ts: not cooling down, quota
 * left), in the pool's member order; with fewer than two, the call takes the normal
 * path, whose rules (all_down, max_wait_ms, probes) then decide. The copies run apart
 * from the client (a client that leaves does not stop a transaction already on its
 * way), and every answer is read (bounded) or its body destroyed, the winner's too
 * late to matter included. Any other call passes through untouched.
 */
import type { Readable } from 'node:stream'
import type { MemberWithName } from '../pools/member.repository.js'
import { assess } from '../rules/eligibility.js'
import { compileMethods, methodAllowed, type MethodRules } from '../rules/rpc-methods.js'
import { readBounded } from './body-read.js'
import type { ServedAnswer } from './cache-answer.js'
import { requestCopy, type ProxyRequest, type RpcCallInfo } from './forward.js'

type Run = (poolId: number, incoming: ProxyRequest) => Promise<ServedAnswer>

/** The method broadcast. */
export const BROADCAST_METHOD = 'eth_sendRawTransaction'

/** Most members one transaction is sent to at once. */
export const MAX_BROADCAST = 16

/** Largest answer read to tell an acceptance (a transaction's hash, or an error: both small). */
const MAX_READ_BYTES = 64 * 1024

/** What the stage reads of the pool's members (the runtime's `members`). */
export type MembersOf = (poolId: number) => Promise<readonly MemberWithName[] | undefined>

/** One copy's outcome: its answer (body read when it could be), ranked (0 an acceptance; see rankOf). */
interface Outcome {
  readonly answer?: ServedAnswer
  readonly rank: number
  readonly error?: unknown
}

/** `run` with an `eth_sendRawTransaction` sent to every eligible member of the pool (see the file's header). */
export function broadcastWrites (run: Run, membersOf: MembersOf, now: () => Date = () => new Date()): Run {
  return async (poolId, incoming) => {
    const rpc = incoming.rpc
    if (rpc?.method !== BROADCAST_METHOD) return await run(poolId, incoming)
    const members = await membersOf(poolId) ?? []
    const targets = targetsOf(members, rpc, now())
    if (targets.length < 2) return await run(poolId, incoming)
    const everyone = new Set(members.map((m) => m.provider_id))
    // In the order they come: with no acceptance, the first refusal of the best kind answers.
    const arrived: Outcome[] = []
    const outcomes = targets.map(async (target) => {
      const outcome = await outcomeOf(run(poolId, copyFor(incoming, rpc, everyone, target)))
      arrived.push(outcome)
      return outcome
    })
    const accepted = await firstAccepted(outcomes)
    if (accepted !== undefined) {
      // The answers after the first acceptance are read or discarded when they come.
      Promise.all(outcomes).then((all) => { discard(all, accepted) }).catch(() => {})
      return accepted.answer as ServedAnswer
    }
    await Promise.all(outcomes)
    const chosen = arrived.reduce((best, o) => o.rank < best.rank ? o : best)
    discard(arrived, chosen)
    if (chosen.answer === undefined) throw chosen.error
    return chosen.answer
  }
}

/** The provider ids the call goes to: eligible members, in the pool's order, at most MAX_BROADCAST. */
function targetsOf (members: readonly MemberWithName[], rpc: RpcCallInfo, at: Date): number[] {
  const targets: number[] = []
  for (const m of members) {
    if (targets.length >= MAX_BROADCAST) break
    if (m.enabled !== 1 || m.base_url === null || rpc.avoid?.has(m.provider_id) === true || targets.includes(m.provider_id)) continue
    if (m.methods !== null && !methodAllowed(compileMethods(JSON.parse(m.methods) as MethodRules), rpc.method)) continue
    if (assess(m, at).eligible) targets.push(m.provider_id)
  }
  return targets
}

/** The copy of the request that goes to `target` alone, apart from the client (no signal, never gone). */
function copyFor (incoming: ProxyRequest, rpc: RpcCallInfo, everyone: ReadonlySet<number>, target: number): ProxyRequest {
  const avoid = new Set(rpc.avoid)
  for (const providerId of everyone) if (providerId !== target) avoid.add(providerId)
  // Pinned: the attempt loop never turns to the avoided members for this copy (forwarding.ts).
  return { ...requestCopy(incoming), rpc: { ...rpc, avoid, pinned: true } }
}

/** The first outcome that is an acceptance, or undefined once every one has come without any. */
async function firstAccepted (outcomes: ReadonlyArray<Promise<Outcome>>): Promise<Outcome | undefined> {
  return await new Promise((resolve) => {
    for (const outcome of outcomes) outcome.then((o) => { if (o.rank === 0) resolve(o) }).catch(() => {})
    // Settles after each outcome's own check above: an acceptance last of all still wins.
    Promise.all(outcomes).then(() => { resolve(undefined) }).catch(() => {})
  })
}

/**
 * A copy's answer, its body read (up to MAX_READ_BYTES; a bigger one kept as the stream
 * readBounded hands back) and ranked: 0 a result (an acceptance), 1 a JSON-RPC error,
 * 2 any other answer of a provider, then the proxy's failures: 3 all failed (502),
 * 4 the deadline (504), 5 none available (503), 6 an error thrown.
 */
async function outcomeOf (running: Promise<ServedAnswer>): Promise<Outcome> {
  let answer: ServedAnswer
  try {
    answer = await running
  } catch (error) {
    return { rank: 6, error }
  }
  if (answer.kind !== 'answer') return { answer, rank: answer.kind === 'failed' ? 3 : answer.kind === 'deadline' ? 4 : 5 }
  if (answer.body === null) return { answer, rank: 2 }
  let body: Buffer | Readable
  try {
    body = Buffer.isBuffer(answer.body) ? answer.body : await readBounded(answer.body, MAX_READ_BYTES)
  } catch (error) {
    return { rank: 6, error }
  }
  const read: ServedAnswer = { ...answer, body: body as never }
  if (!Buffer.isBuffer(body) || answer.status < 200 || answer.status >= 300) return { answer: read, rank: 2 }
  return { answer: read, rank: rankOf(body) }
}

/** 0 for a JSON-RPC result, 1 for a JSON-RPC error, 2 for anything else. */
function rankOf (body: Buffer): number {
  let parsed: unknown
  try { parsed = JSON.parse(body.toString('utf8')) } catch { return 2 }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return 2
  const { result, error } = parsed as { result?: unknown, error?: unknown }
  if (error !== undefined && error !== null) return 1
  return result !== undefined && result !== null ? 0 : 2
}

/** Destroys the unread bodies of the answers not given to the client. */
function discard (outcomes: readonly Outcome[], kept: Outcome): void {
  for (const o of outcomes) {
    const body = o === kept || o.answer?.kind !== 'answer' ? null : o.answer.body
    if (body !== null && body !== undefined && !Buffer.isBuffer(body)) body.destroy()
  }
}
