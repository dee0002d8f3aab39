/**
 * The declared state: providers and pools (with their members by provider name)
 * as a file (`sourcepool.yaml`) or a request body says they should be — the same
 * fields as the API's create bodies, plus `enabled` on pools and members. Unknown
 * keys are refused (a typo in a file must not pass silently). And what a plan or
 * an apply answers: the changes, field by field.
 */
import { Type, type Static } from 'typebox'
import { Nullable } from '../http/schemas.js'
import { CreatePoolBody, UpdateMemberBody } from '../pools/pool.schemas.js'
import { CreateProviderBody } from '../providers/provider.schemas.js'

/**
 * The most one declared state may hold, whichever door it comes in by (a plan or
 * apply body, CONFIG_FILE, the sourcepool command's file): well above 8,000 pools of
 * 10 members (about 4 MB of JSON, 10 MB as export writes it). A larger state is
 * refused whole (413), never applied in part: split it, or apply it in parts.
 */
export const STATE_LIMITS = {
  /** Bytes of the body, or of the file. */
  bytes: 16 * 1024 * 1024,
  providers: 10_000,
  pools: 10_000,
  /** Members of all its pools together (each pool has at most 1,000). */
  members: 200_000
} as const

/** `n` as the limits are written (`200,000`). */
const counted = (n: number) => n.toLocaleString('en-US')

/**
 * Why `value` (a state as sent, not yet checked) is larger than STATE_LIMITS allows,
 * in a sentence; undefined when it is not. Only counts: its shape is checked after.
 */
export function stateTooLarge (value: unknown): string | undefined {
  const { providers, pools } = (value ?? {}) as { providers?: unknown, pools?: unknown }
  const count = (list: unknown) => Array.isArray(list) ? list.length : 0
  let members = 0
  if (Array.isArray(pools)) for (const pool of pools) members += count((pool as { members?: unknown } | null)?.members)
  const over = ([['providers', count(providers)], ['pools', count(pools)], ['members', members]] as const)
    .find(([what, n]) => n > STATE_LIMITS[what])
  if (over === undefined) return undefined
  const [what, n] = over
  return `A declared state may hold at most ${counted(STATE_LIMITS[what])} ${what}${what === 'members' ? ' (all its pools together)' : ''}; ` +
    `this one has ${counted(n)}: apply it in parts`
}

export const DeclaredMember = Type.Object({
  provider: Type.String({ minLength: 1, maxLength: 200, description: 'a provider declared in the same state, by name' }),
  ...UpdateMemberBody.properties
}, { additionalProperties: false })

export const DeclaredPool = Type.Object({
  ...CreatePoolBody.properties,
  enabled: Type.Optional(Nullable(Type.Boolean())),
  members: Type.Optional(Type.Array(DeclaredMember, { maxItems: 1000 }))
}, { additionalProperties: false })

export const DeclaredProvider = Type.Object({ ...CreateProviderBody.properties }, { additionalProperties: false })

export const DeclaredState = Type.Object({
  prune: Type.Optional(Type.Boolean({ description: 'delete providers, pools and members the state does not declare (default false)' })),
  providers: Type.Optional(Type.Array(DeclaredProvider, { maxItems: STATE_LIMITS.providers })),
  pools: Type.Optional(Type.Array(DeclaredPool, { maxItems: STATE_LIMITS.pools }))
}, { additionalProperties: false })
export type DeclaredStateValue = Static<typeof DeclaredState>

const FieldChange = Type.Object({ from: Type.Unknown(), to: Type.Unknown() })

export const Change = Type.Object({
  kind: Type.Union([Type.Literal('provider'), Type.Literal('pool'), Type.Literal('member')]),
  action: Type.Union([Type.Literal('create'), Type.Literal('update'), Type.Literal('delete')]),
  name: Type.String({ description: 'the provider or pool; for a member, pool/provider' }),
  fields: Type.Record(Type.String(), FieldChange, { description: 'what changes: credentials shown as their header names with *** values' })
})
export type ChangeValue = Static<typeof Change>

export const Plan = Type.Object({
  changes: Type.Array(Change),
  summary: Type.Object({ create: Type.Integer(), update: Type.Integer(), delete: Type.Integer() }),
  applied: Type.Boolean({ description: 'true once the changes are committed (apply); false for a plan' }),
  fingerprint: Type.String({ description: "these changes' fingerprint: apply with ?expect=<it> applies exactly them, or answers 409 when the stored state moved since the plan" })
})
export type PlanValue = Static<typeof Plan>

export const ApplyQuery = Type.Object({
  expect: Type.Optional(Type.String({ pattern: '^[0-9a-f]{64}$', description: 'the fingerprint of the plan that was reviewed' }))
})
