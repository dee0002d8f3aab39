/**
 * Method routing in RPC pools (issue 36 item 7): a provider's `methods` says which
 * JSON-RPC methods it is sent, as two lists of patterns where `*` stands for any
 * run of characters (none included): `deny` wins over `allow`, and without `allow`
 * every method not denied is allowed. Patterns match the whole method name, case
 * sensitively (JSON-RPC method names are). Compiled once (compileMethods) into plain
 * string tests — an exact name a Set lookup, `eth_*` a prefix, `*_subscribe` a
 * suffix, anything else its pieces found in order — so a call's check builds no
 * regular expression and cannot backtrack. Pure.
 */

/** A provider's method rules as stored and sent: both lists optional. */
export interface MethodRules {
  readonly allow?: readonly string[]
  readonly deny?: readonly string[]
}

/** Most patterns in one list. */
export const MAX_METHOD_PATTERNS = 64

/** One pattern: 1–128 characters of letters, digits and `_ * . : -` (the characters of method names in use, and the wildcard). */
export const METHOD_PATTERN = '^[A-Za-z0-9_*.:-]{1,128}$'

/** One list compiled: the exact names, and the patterns with a wildcard as their pieces between the `*`s. */
interface CompiledList {
  readonly any: boolean
  readonly exact: ReadonlySet<string>
  readonly globs: ReadonlyArray<readonly string[]>
}

/** Method rules compiled for methodAllowed; `undefined` lists are absent ones. */
export interface CompiledMethods {
  readonly allow: CompiledList | undefined
  readonly deny: CompiledList | undefined
}

/** Every method allowed (no rules). */
export const EVERY_METHOD: CompiledMethods = { allow: undefined, deny: undefined }

function compileList (patterns: readonly string[] | undefined): CompiledList | undefined {
  if (patterns === undefined) return undefined
  const exact = new Set<string>()
  const globs: string[][] = []
  let any = false
  for (const pattern of patterns) {
    if (!pattern.includes('*')) exact.add(pattern)
    else if (/^\*+$/.test(pattern)) any = true
    else globs.push(pattern.split('*'))
  }
  return { any, exact, globs }
}

/** Compiles `rules` (null: every method allowed). */
export function compileMethods (rules: MethodRules | null): CompiledMethods {
  if (rules === null) return EVERY_METHOD
  return { allow: compileList(rules.allow), deny: compileList(rules.deny) }
}

/**
 * True when `method` matches a pattern split at its `*`s into `pieces` (at least two):
 * the first piece starts it, the last ends it, and those between come in order,
 * each taken at its first place after the one before (leftmost is always safe for `*`).
 */
export function matchesGlob (method: string, pieces: readonly string[]): boolean {
  const head = pieces[0] as string
  const tail = pieces[pieces.length - 1] as string
  if (method.length < head.length + tail.length || !method.startsWith(head) || !method.endsWith(tail)) return false
  let at = head.length
  const end = method.length - tail.length
  for (let i = 1; i < pieces.length - 1; i++) {
    const piece = pieces[i] as string
    if (piece === '') continue
    const found = method.indexOf(piece, at)
    if (found < 0 || found + piece.length > end) return false
    at = found + piece.length
  }
  return true
}

function matches (list: CompiledList, method: string): boolean {
  if (list.any || list.exact.has(method)) return true
  for (const pieces of list.globs) if (matchesGlob(method, pieces)) return true
  return false
}

/** True when the rules let `method` through: not denied, and allowed when there is an allow list. */
export function methodAllowed (methods: CompiledMethods, method: string): boolean {
  if (methods.deny !== undefined && matches(methods.deny, method)) return false
  return methods.allow === undefined || matches(methods.allow, method)
}
