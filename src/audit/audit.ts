/**
 * Audit records of admin changes: who (`actor`) and from where (`client_address`),
 * what (`action`, `target`), the fields sent (`changes`, secrets masked) and the request id. Services append
 * one inside the transaction of the change, so both land or neither does.
 */
import { prepared } from '../db/prepared.js'
import { isSecretName, MASK, maskText } from '../rules/secrets.js'
import type { Db } from '../db/types.js'
import { execute, type Work } from '../db/work.js'

/** Who is making a change, from the request. */
export interface Actor {
  readonly name: string
  readonly requestId: string
  /** The client's address (`request.ip`: behind a trusted front door, the one it reported); none outside a request. */
  readonly address?: string
}

/**
 * A change as its audit record tells it: who makes it, what they sent (masked when
 * recorded) and when. The write rules services share (a service's method, an apply
 * of declared state) take it, whichever door the change came in by.
 */
export interface Change {
  readonly actor: Actor
  readonly changes: unknown
  readonly at: Date
}

/** For changes made outside a request (tests, scripts). */
export const SYSTEM_ACTOR: Actor = { name: 'system', requestId: 'none' }

/** A switch or a number, or a change of one (`{from, to}`): never a secret, whatever its name (`forward_client_auth`). */
function isSetting (value: unknown): boolean {
  if (value === null || typeof value === 'boolean' || typeof value === 'number') return true
  if (typeof value !== 'object' || Array.isArray(value)) return false
  const entries = Object.entries(value)
  return entries.length > 0 && entries.every(([key, item]) => (key === 'from' || key === 'to') && (item === null || typeof item === 'boolean' || typeof item === 'number'))
}

/**
 * A copy of `changes` with secrets masked, by the one rule of what is a credential
 * (rules/secrets.ts): secret-looking keys, and in every text credentials inside URLs
 * and secret-looking query values (maskText, the rule a 422's `input` follows too; a
 * plan's `*** (changed)` stays as it is). Unlike a 422's `input`, a number under a secret
 * key is kept: changes are recorded after validation, where a secret is text by
 * schema, so a number there is a setting (`token_ttl`).
 */
export function maskSecrets (changes: unknown): unknown {
  if (Array.isArray(changes)) return changes.map(maskSecrets)
  if (changes === null || typeof changes !== 'object') return typeof changes === 'string' ? maskText(changes) : changes
  return Object.fromEntries(Object.entries(changes).map(([key, value]) =>
    [key, isSecretName(key) && !isSetting(value) ? MASK : maskSecrets(value)]))
}

const insertAuditRow = prepared((db, p: { timestamp: string, actor: string, action: string, target: string, changes: string, requestId: string, address: string | null }) =>
  db.insertInto('audit_log').values({
    timestamp: p.timestamp,
    actor: p.actor,
    action: p.action,
    target: p.target,
    changes: p.changes,
    request_id: p.requestId,
    client_address: p.address
  }))

/** Appends an audit record; yield it inside the change's unit of work. */
export function * recordAudit (
  db: Db, actor: Actor, entry: { action: string, target: string, changes: unknown, at: Date }
): Work<void> {
  yield * execute(insertAuditRow(db, {
    timestamp: entry.at.toISOString(),
    actor: actor.name,
    action: entry.action,
    target: entry.target,
    changes: JSON.stringify(maskSecrets(entry.changes ?? {})),
    requestId: actor.requestId,
    address: actor.address ?? null
  }))
}

/**
 * Runs `work` and, when it produced a result (the change happened), appends its
 * audit record in the same unit of work.
 */
export function * audited<T> (
  db: Db, actor: Actor, entry: { action: string, target: (result: T) => string, changes: unknown, at: Date }, work: Work<T | undefined>
): Work<T | undefined> {
  const result = yield * work
  if (result !== undefined) yield * recordAudit(db, actor, { ...entry, target: entry.target(result) })
  return result
}

/** The actor of a request: its token's name (or `anonymous`), its id and the client's address. */
export function actorOf (request: { actor: string, id: string, ip: string }): Actor {
  return { name: request.actor, requestId: request.id, address: request.ip }
}
