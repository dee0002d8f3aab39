/**
 * Masking secrets wherever they could be shown or written, by the one rule of what
 * is a credential (rules/secrets.ts): the audit trail, the 422 `input` echo, the
 * request logs, the errors written to the log and the provider records shown to
 * callers. Kept here under the names those callers know.
 */
import { maskText, maskUrlsIn, type PieceOptions } from '../rules/secrets.js'

export { isSecretName, MASK, maskText } from '../rules/secrets.js'

/**
 * `value` with its password (or a user name standing alone, which is often a
 * token) and secret-looking query values (or, with `everyQueryValue`, every query
 * value) masked, the parameters kept in their order; a URL without secrets, or
 * text that is not a URL, comes back exactly as it was. A URL the parser refuses
 * (`https://user:pw@host:99999/`) is masked as text, by the same rules.
 */
export function maskUrl (value: string, options: Pick<PieceOptions, 'everyQueryValue'> = {}): string {
  return maskText(value, options)
}

/**
 * A request target (`/path?query`) with secret-looking query values (or, with
 * `everyQueryValue`, every query value) masked, for logs, the audit trail and
 * health check paths shown below `admin`.
 */
export function maskRequestTarget (target: string, options: Pick<PieceOptions, 'everyQueryValue'> = {}): string {
  return maskText(target, options)
}

/** Deepest chain of causes written for one logged error. */
const MAX_CAUSES = 5

/**
 * An error as a log line writes it (the logger's `err` serializer): its type,
 * message, stack, own fields (a driver's `code`, Node's invalid-URL `input`) and
 * causes, every text with its credentials masked. An error may quote the URL it
 * failed on (`new URL(stored)` throws with the whole URL as `input`), and the log
 * is kept longer and read by more people than the database.
 */
export function errorLogFields (error: unknown): { [key: string]: unknown, type: string, message: string, stack: string } {
  return errorFields(error, 0)
}

function errorFields (error: unknown, depth: number): { [key: string]: unknown, type: string, message: string, stack: string } {
  if (!(error instanceof Error)) return { type: typeof error, message: maskUrlsIn(maskText(String(error))), stack: '' }
  const fields: { [key: string]: unknown, type: string, message: string, stack: string } = {
    type: error.constructor.name, message: maskUrlsIn(maskText(error.message)), stack: maskUrlsIn(error.stack ?? '')
  }
  for (const [name, value] of Object.entries(error)) {
    if (name === 'cause' || name in fields) continue
    fields[name] = typeof value === 'string' ? maskUrlsIn(maskText(value)) : value
  }
  if (error.cause !== undefined && depth < MAX_CAUSES) fields.cause = errorFields(error.cause, depth + 1)
  return fields
}
