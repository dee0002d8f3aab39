/**
 * Opaque page cursors for keyset-paged lists: a position's values as a JSON
 * array in base64url. Clients pass `next_cursor` back as it is; anything the
 * service did not write is the same 422 on every list (a `value_error` on `query.cursor`).
 */
import { RequestValidationError, valueError } from '../errors.js'

/** The cursor of the page after the position whose values are `values`. */
export function encodeCursor (values: readonly unknown[]): string {
  return Buffer.from(JSON.stringify(values)).toString('base64url')
}

/**
 * The position in `cursor`, as `read` makes it from the decoded values (undefined when
 * they are not a position it wrote); a cursor that is not one is a 422 on `query.cursor`.
 */
export function decodeCursor<T> (cursor: string, read: (values: readonly unknown[]) => T | undefined): T {
  let position: T | undefined
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
    if (Array.isArray(value)) position = read(value)
  } catch {}
  if (position !== undefined) return position
  throw new RequestValidationError([valueError(['query', 'cursor'], cursor, 'invalid cursor: pass next_cursor from the previous page as it is')])
}
