/**
 * A declared state checked by the API's rules and put in stored form (every provider
 * and pool field with its default when absent: the state says what everything
 * should be), every problem found in one pass: fields the API would refuse, names
 * declared twice, members naming a provider the state does not declare.
 *
 * A state whose shape is wrong in places (an unknown field, a bad URL: found by
 * declared.shape.ts) is still checked everywhere else, so the shape's problems and
 * these come in one answer: names and members' references over every entry that has
 * a name, the field rules over every entry whose shape is right.
 */
import type { Pieces } from '../db/work.js'
import { RequestValidationError, valueError, type ValidationIssue } from '../errors.js'
import { storedPool, type StoredPool } from '../pools/pool.rules.js'
import { storedProvider, type StoredProvider } from '../providers/provider.rules.js'
import type { DeclaredStateValue } from './declared.schemas.js'
import { PLACEHOLDER } from './declared.shape.js'

type Loc = ReadonlyArray<string | number>

export interface DesiredMember {
  readonly provider: string
  readonly priority: number
  readonly weight: number
  readonly enabled: number
}

export type DesiredPool = StoredPool & { readonly members: readonly DesiredMember[] }

/** A declared state, checked, in stored form. */
export interface Desired {
  readonly prune: boolean
  readonly providers: readonly StoredProvider[]
  readonly pools: readonly DesiredPool[]
}

type DeclaredProvider = NonNullable<DeclaredStateValue['providers']>[number]
type DeclaredPool = NonNullable<DeclaredStateValue['pools']>[number]

/** The places in a state (`['providers', 0, 'base_url']`) where its shape is wrong. */
export type Places = ReadonlyArray<ReadonlyArray<string | number>>

/** What of a state did not parse, by entry. */
interface Misshapen {
  /** The state itself (not a mapping, nested too deep): nothing can be checked. */
  readonly whole: boolean
  /** `providers` is there but not a list: which names it declares is unknown. */
  readonly providerList: boolean
  /** A key at the top is wrong (perhaps a misspelt `providers`). */
  readonly top: boolean
  readonly providers: ReadonlySet<number>
  readonly pools: ReadonlySet<number>
}

const WELL_SHAPED: Misshapen = { whole: false, providerList: false, top: false, providers: new Set(), pools: new Set() }

function misshapenAt (places: Places): Misshapen {
  const found = { whole: false, providerList: false, top: false, providers: new Set<number>(), pools: new Set<number>() }
  for (const [list, index] of places) {
    if (list === undefined) found.whole = true
    else if (list === 'providers' && index === undefined) found.providerList = true
    else if ((list === 'providers' || list === 'pools') && typeof index === 'number') found[list].add(index)
    else if (index === undefined) found.top = true
  }
  return found
}

/** Runs a check that throws 422s, keeping its issues. */
function collect<T> (issues: ValidationIssue[], check: () => T): T | undefined {
  try {
    return check()
  } catch (error) {
    if (!(error instanceof RequestValidationError)) throw error
    issues.push(...error.issues)
    return undefined
  }
}

/** Records where `name` is declared; false (and an issue) when it was declared before. */
function firstDeclaration (seen: Map<string, number>, kind: 'provider' | 'pool', name: string, i: number, at: Loc, issues: ValidationIssue[]): boolean {
  const first = seen.get(name)
  if (first !== undefined) {
    issues.push(valueError([...at, `${kind}s`, i, 'name'], name, `${kind} '${name}' is declared twice (first as ${kind}s[${first}])`))
    return false
  }
  seen.set(name, i)
  return true
}

/** A placeholder still in a provider was never filled in (a file is filled in when read; a body must come filled in). */
function unfilledPlaceholders (declared: DeclaredProvider, at: Loc): ValidationIssue[] {
  const places: Array<[Array<string | number>, unknown]> = [
    [['base_url'], declared.base_url], [['ws_url'], declared.ws_url], [['health_check', 'path'], declared.health_check?.path],
    ...Object.entries(declared.auth_headers ?? {}).map(([name, value]): [Array<string | number>, unknown] => [['auth_headers', name], value])
  ]
  const issues: ValidationIssue[] = []
  for (const [place, text] of places) {
    const variable = typeof text === 'string' ? [...text.matchAll(PLACEHOLDER)][0]?.[1] : undefined
    if (variable !== undefined) {
      issues.push(valueError([...at, ...place], text, `holds the placeholder \${${variable}}: fill it in from the environment first (the sourcepool command and CONFIG_FILE do)`))
    }
  }
  return issues
}

/** An entry's list (`providers`, `members`…) when it is one; nothing else is read from a misshapen entry. */
const listOf = (value: unknown): unknown[] => Array.isArray(value) ? value : []

/** An entry's field when the entry is an object and the field a text. */
function textOf (entry: unknown, field: string): string | undefined {
  const value = entry !== null && typeof entry === 'object' ? (entry as Record<string, unknown>)[field] : undefined
  return typeof value === 'string' ? value : undefined
}

/** The providers checked: the stored form of each well-shaped one, and where each name is declared. */
function checkProviders (list: unknown[], at: Loc, misshapen: Misshapen, issues: ValidationIssue[]) {
  const stored: StoredProvider[] = []
  const declaredAt = new Map<string, number>()
  list.forEach((entry, i) => {
    const name = textOf(entry, 'name')
    if (name === undefined || !firstDeclaration(declaredAt, 'provider', name, i, at, issues)) return
    if (misshapen.providers.has(i)) return
    const declared = entry as DeclaredProvider
    issues.push(...unfilledPlaceholders(declared, [...at, 'providers', i]))
    const provider = collect(issues, () => storedProvider(declared, [...at, 'providers', i]))
    if (provider !== undefined) stored.push(provider)
  })
  return { stored, declaredAt }
}

/** A pool's members checked: each names a declared provider (unless which are declared is unknown), once. */
function checkMembers (entry: unknown, i: number, at: Loc, declared: ReadonlyMap<string, number> | undefined, issues: ValidationIssue[]): DesiredMember[] {
  const members: DesiredMember[] = []
  const memberAt = new Map<string, number>()
  listOf((entry as { members?: unknown } | null)?.members).forEach((member, j) => {
    const provider = textOf(member, 'provider')
    if (provider === undefined) return
    // Made only for an issue: a state may hold 200,000 members.
    const loc = () => [...at, 'pools', i, 'members', j, 'provider']
    if (declared !== undefined && !declared.has(provider)) {
      issues.push(valueError(loc(), provider, `no provider '${provider}' is declared in this state`))
    } else if (memberAt.has(provider)) {
      issues.push(valueError(loc(), provider, `provider '${provider}' is a member of this pool twice (first as members[${memberAt.get(provider) ?? 0}])`))
    } else {
      memberAt.set(provider, j)
      const { priority, weight, enabled } = member as { priority?: number, weight?: number, enabled?: boolean }
      members.push({ provider, priority: priority ?? 1, weight: weight ?? 1, enabled: enabled === false ? 0 : 1 })
    }
  })
  return members
}

/** Pools checked per piece of `checking`: about a millisecond's work. */
const CHECKED_PER_PIECE = 500

/** The check of a state a piece at a time (see desiring): every issue, and the state in stored form (whole only without issues). */
function * checking (input: unknown, at: Loc, misshapen: Misshapen): Pieces<{ issues: ValidationIssue[], desired: Desired }> {
  const issues: ValidationIssue[] = []
  const state = (misshapen.whole ? {} : input ?? {}) as { providers?: unknown, pools?: unknown, prune?: unknown }
  const providers = checkProviders(listOf(state.providers), at, misshapen, issues)
  // Which providers are declared is unknown when the list is not one, or absent beside a key that is wrong.
  const unknown = misshapen.providerList || (misshapen.top && state.providers === undefined)
  const declared = unknown ? undefined : providers.declaredAt
  const pools: DesiredPool[] = []
  const poolAt = new Map<string, number>()
  for (const [i, entry] of listOf(state.pools).entries()) {
    if (i % CHECKED_PER_PIECE === CHECKED_PER_PIECE - 1) yield
    const name = textOf(entry, 'name')
    if (name !== undefined && !firstDeclaration(poolAt, 'pool', name, i, at, issues)) continue
    const members = checkMembers(entry, i, at, declared, issues)
    if (name === undefined || misshapen.pools.has(i)) continue
    const stored = collect(issues, () => storedPool(entry as DeclaredPool, [...at, 'pools', i]))
    if (stored !== undefined) pools.push({ ...stored, members })
  }
  return { issues, desired: { prune: state.prune === true, providers: providers.stored, pools } }
}

/**
 * The state in stored form; a 422 listing every problem (each `loc` under `at`):
 * a field the API would refuse, a name declared twice, a member naming a provider
 * the state does not declare.
 */
export function desiredState (input: DeclaredStateValue, at: Loc): Desired {
  return atOnce(desiring(input, at))
}

/** Runs computing done a piece at a time (db/work.ts Pieces) to its end at once. */
export function atOnce<T> (pieces: Pieces<T>): T {
  for (;;) {
    const step = pieces.next()
    if (step.done === true) return step.value
  }
}

/**
 * desiredState a piece at a time: yields (nothing) after every CHECKED_PER_PIECE
 * pools, so that a state of thousands of pools can let the event loop turn
 * (db/work.ts `paced`).
 */
export function * desiring (input: DeclaredStateValue, at: Loc): Pieces<Desired> {
  const { issues, desired } = yield * checking(input, at, WELL_SHAPED)
  if (issues.length > 0) throw new RequestValidationError(issues)
  return desired
}

/**
 * The problems desiredState finds in a state whose shape is wrong at `places`
 * (paths in the state), a piece at a time: checked wherever it did parse, so they
 * can be told with the shape's own, in one answer.
 */
export function * misshapenIssues (input: unknown, at: Loc, places: Places): Pieces<ValidationIssue[]> {
  return (yield * checking(input, at, misshapenAt(places))).issues
}
