/**
 * The 422 entries as a caller receives them. pydantic would list every problem
 * and echo every value whole; here each `input` has its credentials masked, and
 * the answer is bounded, by the house rule that a caller cannot make the service
 * answer unbounded bytes: at most MAX_ISSUES entries in at most MAX_ANSWER_BYTES,
 * every text cut, cut before it is masked, and one budget for all the inputs
 * (docs/decisions.md, "Validation"). Every 422, whoever found its problems, is
 * answered through answeredIssues; whoever collects problems from a large body
 * stops once it has enough (enoughIssues).
 */
import { valueError, type ValidationIssue } from '../errors.js'
import { isSecretName, MASK, maskText } from './redact.js'

/** Most entries one 422 lists; when problems are left out, the last entry says so. */
export const MAX_ISSUES = 100

/** Most bytes of JSON a 422's `detail` list takes; entries that would go beyond it are left out too. */
export const MAX_ANSWER_BYTES = 64 * 1024

/**
 * Whether `issues` already holds more problems than an answer lists (so the answer
 * can say some were left out): where problems are collected from a large body,
 * collecting stops there.
 */
export const enoughIssues = (issues: readonly unknown[]): boolean => issues.length > MAX_ISSUES

/** Most characters shown of one text: a string, a key, a key in `loc`. */
const MAX_TEXT = 1024
/** About the most JSON (bytes) one entry's `input` and long `loc` keys take, and all of an answer's together. */
const ENTRY_BUDGET = 4 * 1024
const ANSWER_BUDGET = 16 * 1024
/** Fewest characters shown of a text once the budget is spent; a key in `loc` keeps more, to stay recognisable. */
const MIN_TEXT = 16
const MIN_LOC_TEXT = 64
/** Room kept for the entry that says problems were left out. */
const LEFT_OUT_BYTES = 512

interface Budget { left: number }

const plural = (n: number) => n === 1 ? '' : 's'
const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value))

/** The first `room` characters of `text` (a surrogate pair kept whole), and whether that cut it. */
function cut (text: string, room: number): [string, boolean] {
  if (text.length <= room) return [text, false]
  const end = /[\ud800-\udbff]/.test(text.charAt(room - 1)) ? room - 1 : room
  return [text.slice(0, end), true]
}

/** A text cut inside a URL's authority, where the `@` that would end its credentials is gone: scheme (or `//`) and slashes. */
const CUT_IN_AUTHORITY = /^(\s*(?:[a-z][a-z0-9+.-]*:[/\\]+|[/\\]{2}))[^/?#\\]*$/i

/**
 * A string as shown: cut to `room` characters first, so only what is shown is
 * ever scanned, then masked (maskText); a cut inside a URL's authority shows none
 * of it, which may hold credentials whose end was cut off. `…` marks a cut.
 */
function shownText (text: string, room: number): string {
  const [kept, wasCut] = cut(text, room)
  const authority = wasCut ? CUT_IN_AUTHORITY.exec(kept) : null
  // Masking can lengthen a text (`***` for a short password): cut again.
  const [shown, cutAgain] = authority !== null ? [`${authority[1] as string}${MASK}`, true] : cut(maskText(kept), room)
  return wasCut || cutAgain ? `${shown}…` : shown
}

/**
 * A copy of `value` fit to answer, spending `budget`: every string and number
 * under a secret-looking key (`auth_headers`, `api_key`…) masked (booleans and
 * null are settings, kept: `forward_client_auth`), texts shown by shownText and
 * keys cut like them, each at most MAX_TEXT characters or what is left (never
 * below MIN_TEXT); a list or object costs its brackets, and once the budget is
 * spent the rest of one is left out, saying how much (`"… 1536 more items"`).
 */
function echo (value: unknown, secret: boolean, budget: Budget, keysOf: (value: object) => string[]): unknown {
  const room = () => Math.max(MIN_TEXT, Math.min(MAX_TEXT, budget.left))
  let shown: unknown
  if (typeof value === 'string') {
    shown = secret ? MASK : shownText(value, room())
  } else if (typeof value === 'number') {
    // A number under a secret key may be the secret (a numeric API key); JSON has no infinity (`1e999`): its name says what was sent.
    shown = secret ? MASK : Number.isFinite(value) ? value : String(value)
  } else if (value === null || typeof value !== 'object') {
    shown = typeof value === 'boolean' ? value : null
  } else if (Array.isArray(value)) {
    budget.left -= 2
    const items: unknown[] = []
    for (let i = 0; i < value.length; i++) {
      if (budget.left <= 0) {
        items.push(`… ${value.length - i} more item${plural(value.length - i)}`)
        break
      }
      items.push(echo(value[i], secret, budget, keysOf))
      budget.left -= 1
    }
    return items
  } else {
    budget.left -= 2
    const entries: Array<[string, unknown]> = []
    const keys = keysOf(value)
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string
      if (budget.left <= 0) {
        entries.push(['…', `${keys.length - i} more key${plural(keys.length - i)}`])
        break
      }
      const [kept, wasCut] = cut(key, room())
      const shownKey = wasCut ? `${kept}…` : kept
      budget.left -= jsonBytes(shownKey) + 2
      entries.push([shownKey, echo((value as Record<string, unknown>)[key], secret || isSecretName(key), budget, keysOf)])
    }
    return Object.fromEntries(entries)
  }
  budget.left -= jsonBytes(shown)
  return shown
}

/** `loc` as shown: a key longer than MIN_LOC_TEXT characters (only a caller's own keys are) cut like a text, spending `budget`. */
function shownLoc (loc: ReadonlyArray<string | number>, budget: Budget): Array<string | number> {
  return loc.map((segment) => {
    if (typeof segment !== 'string' || segment.length <= MIN_LOC_TEXT) return segment
    const [kept, wasCut] = cut(segment, Math.max(MIN_LOC_TEXT, Math.min(MAX_TEXT, budget.left)))
    const shown = wasCut ? `${kept}…` : kept
    budget.left -= jsonBytes(shown)
    return shown
  })
}

/** Whether the input of `issue` sits under a secret-looking key (a key checked at `[key]` is a name, not a secret). */
function isSecretPlace (issue: ValidationIssue): boolean {
  const path = issue.loc.slice(1, issue.type === 'missing' ? -1 : undefined)
  if (path.at(-1) === '[key]') return false
  return path.some((segment) => typeof segment === 'string' && isSecretName(segment))
}

/**
 * The 422 entries as answered: the first ones, each `loc` and `input` shown as
 * above, an entry at most about ENTRY_BUDGET bytes and all of them together about
 * ANSWER_BUDGET (once spent, an input shows only the start of a text, or how much
 * a list or object held). At most MAX_ISSUES entries in MAX_ANSWER_BYTES: when
 * problems are left out, the last entry (a `value_error` at the request part, input
 * null) says how many are listed.
 */
export function answeredIssues (issues: readonly ValidationIssue[]): ValidationIssue[] {
  const answer: ValidationIssue[] = []
  const shared: Budget = { left: ANSWER_BUDGET }
  const keys = new WeakMap<object, string[]>()
  const keysOf = (value: object) => keys.get(value) ?? (keys.set(value, Object.keys(value)).get(value) as string[])
  const listable = issues.length > MAX_ISSUES ? MAX_ISSUES - 1 : MAX_ISSUES
  let bytes = 2
  for (const issue of issues.slice(0, listable)) {
    const budget: Budget = { left: Math.min(ENTRY_BUDGET, shared.left) }
    const spendable = budget.left
    const entry = { ...issue, loc: shownLoc(issue.loc, budget), input: echo(issue.input, isSecretPlace(issue), budget, keysOf) }
    shared.left -= spendable - budget.left
    const size = jsonBytes(entry) + 1
    if (answer.length > 0 && bytes + size + LEFT_OUT_BYTES > MAX_ANSWER_BYTES) break
    answer.push(entry)
    bytes += size
  }
  if (answer.length < issues.length) {
    const part = (issues[answer.length] as ValidationIssue).loc[0] ?? 'body'
    answer.push(valueError([part], null,
      `the first ${answer.length} problems are listed; more were found and left out (a 422 lists at most ${MAX_ISSUES} entries, in at most ${MAX_ANSWER_BYTES / 1024} KiB)`))
  }
  return answer
}
