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
  providers: Type.Optional(Type.Array(DeclaredProvider, { maxItems: 10_000 })),
  pools: Type.Optional(Type.Array(DeclaredPool, { maxItems: 10_000 }))
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
