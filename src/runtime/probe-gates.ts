/**
 * The probe gates of this process (rules/probe-gate.ts): for each member that failed
 * to connect since it last answered, when its last probe went and whether one is
 * out. Choosing (choosing.ts) asks a gated member's gate before handing it out and
 * claims it when it does; accounting (accounting.ts) opens a gate on a failed
 * connection, closes it on any other outcome (saying when a probe's answer ends the
 * cooldown), and frees it when the attempt ends. In memory and per process, as the
 * attempts in flight are; nothing here is written down.
 */
import { gated, probeAllowed, probeEndsCooldown, probeWaitMs, type ProbeGate } from '../rules/probe-gate.js'

/** Gates kept at most (members that failed to connect and have not answered since); past it the oldest goes. */
const MAX_GATES = 10_000

/** What a gate reads of a member. */
interface GatedMember {
  readonly id: number
  readonly cooldown_until: string | null
  readonly cooldown_reason: string | null
}

/** Builds the empty gates of one runtime. */
export function createProbeGates () {
  /** member id → its gate. */
  const gates = new Map<number, ProbeGate>()

  return {
    /** True when no member is gated (a choice then asks nothing). */
    empty: (): boolean => gates.size === 0,

    /**
     * Milliseconds until `member` may be probed, when its gate holds it back at
     * `atMs`; undefined when it may be chosen (not gated, or a probe may go now).
     */
    heldFor (member: GatedMember, atMs: number): number | undefined {
      const gate = gates.get(member.id)
      if (!gated(member, gate)) return undefined
      return probeAllowed(gate, atMs) ? undefined : probeWaitMs(gate, atMs)
    },

    /** `member` was chosen at `atMs`: when it is gated, that attempt is its probe. */
    claim (member: GatedMember, atMs: number): void {
      const gate = gates.get(member.id)
      if (!gated(member, gate)) return
      gate.probing = true
      gate.lastAt = atMs
    },

    /**
     * An outcome of `member`'s at `atMs`: a failed connection opens (or renews) its
     * gate, anything else closes it. True when it is an answer that ends the member's
     * cooldown: it answered while gated, in a cooldown its own failures started.
     */
    reported (member: GatedMember, connectFailed: boolean, success: boolean, atMs: number): boolean {
      const gate = gates.get(member.id)
      if (connectFailed) {
        if (gate !== undefined) {
          gate.lastAt = atMs
          gate.probing = false
        } else {
          if (gates.size >= MAX_GATES) gates.delete(gates.keys().next().value as number)
          gates.set(member.id, { lastAt: atMs, probing: false })
        }
        return false
      }
      if (gate === undefined) return false
      gates.delete(member.id)
      return success && gated(member, gate) && probeEndsCooldown(member.cooldown_reason)
    },

    /** An attempt of member `memberId` ended: its probe, if one was out, is back. */
    released (memberId: number): void {
      if (gates.size === 0) return
      const gate = gates.get(memberId)
      if (gate !== undefined) gate.probing = false
    }
  }
}

export type ProbeGates = ReturnType<typeof createProbeGates>
