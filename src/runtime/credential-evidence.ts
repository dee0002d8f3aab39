/**
 * What this process has seen of how our credentials fare with each provider, as
 * the evidence the one credential rule (rules/credential-refusal.ts) judges a
 * 401/402 by: the targets (path and query) that answered 2xx with the credentials as
 * stored — a bounded set per provider (MAX_TARGETS, the oldest forgotten first),
 * forgotten when its credentials change. Refusals of other paths are no evidence: the
 * client chooses the paths.
 */
import { healthCheckPathOf, judgeRefusal, type CredentialVerdict } from '../rules/credential-refusal.js'
import type { Member } from './runtime-state.js'

/** Targets remembered per provider (the oldest forgotten first): enough for the paths an application polls. */
const MAX_TARGETS = 128

/** A longer target is not remembered. */
const MAX_TARGET_LENGTH = 2048

/** The targets that answered 2xx with `credential` (the provider's auth_headers as stored). */
interface Worked {
  readonly credential: string | null
  readonly targets: Set<string>
}

type Credentialled = Pick<Member, 'provider_id' | 'auth_headers' | 'health_check'>

/** Builds the evidence kept by one runtime. */
export function createCredentialEvidence () {
  const worked = new Map<number, Worked>()

  return {
    /** Remembers that `target` answered 2xx with the member's provider's credentials as stored. */
    worked (member: Credentialled, target: string): void {
      if (target.length > MAX_TARGET_LENGTH) return
      let known = worked.get(member.provider_id)
      if (known === undefined || known.credential !== member.auth_headers) {
        worked.set(member.provider_id, known = { credential: member.auth_headers, targets: new Set() })
      }
      if (known.targets.has(target)) return
      if (known.targets.size >= MAX_TARGETS) known.targets.delete(known.targets.values().next().value as string)
      known.targets.add(target)
    },

    /** The verdict on a 401/402 on our credentials that the member's provider answered for `target`. */
    judge (member: Credentialled, target: string): CredentialVerdict {
      const known = worked.get(member.provider_id)
      return judgeRefusal({
        path: target,
        succeededBefore: known !== undefined && known.credential === member.auth_headers && known.targets.has(target),
        healthCheckPath: healthCheckPathOf(member.health_check)
      })
    }
  }
}
