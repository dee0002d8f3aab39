/**
 * A failure no dearer than a success (issue 35 item 6): while a member cools down
 * after a failed connection (refused, reset, DNS, TLS), the proxy sends it at most
 * one probe at a time and at most one a second, and every other request that would
 * have gone to it skips it, as NGINX answers "no live upstreams" without a connect
 * and a circuit breaker lets one trial request through when half-open. A probe that
 * answers ends the cooldown for everyone. The gate's memory (runtime/probe-gates.ts)
 * is per process; these are its pure rules.
 */

/** The shortest time between two probes of one member, in milliseconds. */
export const PROBE_INTERVAL_MS = 1000

/** How soon a request that waits for a member (max_wait_ms) looks again while its probe is still out. */
export const PROBE_RECHECK_MS = 250

/** What the gate keeps of one member: when its last probe went (or its last connection failed), and whether a probe is out. */
export interface ProbeGate {
  lastAt: number
  probing: boolean
}

/**
 * Whether the gate applies to a member: it failed to connect since it last answered,
 * and it has a cooldown on record (cooling down, or eligible again but not yet
 * answering: the health model's probing). A member whose failures have not reached
 * the pool's failure_threshold is chosen as usual.
 */
export function gated (member: { readonly cooldown_until: string | null }, gate: ProbeGate | undefined): gate is ProbeGate {
  return gate !== undefined && member.cooldown_until !== null
}

/** Whether a probe may go at `atMs`: none is out, and the last went a second ago or more (or the clock went back). */
export function probeAllowed (gate: ProbeGate, atMs: number): boolean {
  const since = atMs - gate.lastAt
  return !gate.probing && (since >= PROBE_INTERVAL_MS || since < 0)
}

/** Milliseconds from `atMs` until a probe may go, as a request told to retry (or waiting) is told: PROBE_RECHECK_MS at least while one is out. */
export function probeWaitMs (gate: ProbeGate, atMs: number): number {
  return Math.max(1, gate.lastAt + PROBE_INTERVAL_MS - atMs, gate.probing ? PROBE_RECHECK_MS : 0)
}

/**
 * Whether a member's answer while gated ends its cooldown at once: a cooldown its own
 * failures started (`consecutive_failures`, `probe_failed`). A provider's pause, our
 * key rejected and a failed health check run their course.
 */
export function probeEndsCooldown (reason: string | null): boolean {
  return reason === 'consecutive_failures' || reason === 'probe_failed'
}
