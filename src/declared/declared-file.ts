/**
 * A declared state file (YAML, or JSON, which YAML reads too) read into a checked
 * state: YAML errors, `${ENV_VAR}` references in credential values resolved from the
 * environment given (never written back out), the schema with unknown keys refused,
 * and the same field rules as the API. Every problem is reported at once, each with
 * the file, its path in the file (`pools[2].members[0].provider`) and its line.
 */
import { readFile, stat } from 'node:fs/promises'
import { Ajv, type ErrorObject } from 'ajv'
import { isMap, isSeq, LineCounter, parseDocument, type Document } from 'yaml'
import { RequestValidationError } from '../errors.js'
import { isStorableText, UNSTORABLE_TEXT } from '../http/validation.js'
import { desiredState, type Desired } from './declared.rules.js'
import { DeclaredState, type DeclaredStateValue } from './declared.schemas.js'

/** The largest file read (a state of 10,000 providers is about 2 MB). */
export const MAX_FILE_BYTES = 16 * 1024 * 1024

/** One problem in a file. */
export interface FileProblem {
  readonly file: string
  /** Where in the file, e.g. `pools[2].members[0].provider` ('' for the whole file). */
  readonly path: string
  /** 1-based, or null when the file has no such place (a missing key is shown at its parent). */
  readonly line: number | null
  readonly message: string
}

/** A file that cannot be applied; `problems` says every reason. */
export class DeclaredFileError extends Error {
  readonly problems: readonly FileProblem[]

  /** Keeps `problems` in the order of the file (those without a line last). */
  constructor (problems: readonly FileProblem[]) {
    const ordered = [...problems].sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity))
    super(ordered.map(formatProblem).join('\n'))
    this.problems = ordered
  }
}

/** `file:line: path: message`, the form editors and CI logs link. */
export function formatProblem (problem: FileProblem): string {
  return `${problem.file}${problem.line === null ? '' : `:${problem.line}`}: ${problem.path === '' ? '' : `${problem.path}: `}${problem.message}`
}

/** `['pools', 2, 'members', 0]` as `pools[2].members[0]`. */
export function pathText (segments: ReadonlyArray<string | number>): string {
  return segments.reduce<string>((text, segment) => typeof segment === 'number' ? `${text}[${segment}]` : text === '' ? segment : `${text}.${segment}`, '')
}

const ajv = new Ajv({ allErrors: true, strict: false })
const validateState = ajv.compile(DeclaredState)

/**
 * The line of `segments` in the document: of its key when it is a mapping's entry
 * (`health_check:`, not the first line of its value), of the item in a list; for a
 * place the file does not have (a missing key), the nearest one it has above it.
 */
function lineOf (doc: Document, lines: LineCounter, segments: ReadonlyArray<string | number>): number | null {
  for (let depth = segments.length; depth >= 0; depth--) {
    const last = segments[depth - 1]
    if (typeof last === 'string') {
      const parent = doc.getIn(segments.slice(0, depth - 1), true)
      if (isMap(parent)) {
        const pair = parent.items.find((item) => (item.key as { value?: unknown } | null)?.value === last)
        const range = (pair?.key as { range?: [number, number, number] } | undefined)?.range
        if (range !== undefined) return lines.linePos(range[0]).line
      }
      continue
    }
    const node = (depth === 0 ? doc.contents : doc.getIn(segments.slice(0, depth), true)) as { range?: [number, number, number] } | null | undefined
    if (node?.range != null) return lines.linePos(node.range[0]).line
  }
  return null
}

/** An ajv error's place and words. */
function fromSchema (error: ErrorObject): { segments: Array<string | number>, message: string } {
  const segments = error.instancePath.split('/').slice(1).map((part) => {
    const text = part.replace(/~1/g, '/').replace(/~0/g, '~')
    return /^\d+$/.test(text) ? Number(text) : text
  })
  const params = error.params as { additionalProperty?: string, missingProperty?: string, allowedValues?: unknown[] }
  if (params.additionalProperty !== undefined) return { segments: [...segments, params.additionalProperty], message: 'is not a field this object has' }
  if (params.missingProperty !== undefined) return { segments, message: `is missing its required field '${params.missingProperty}'` }
  if (params.allowedValues !== undefined) return { segments, message: `must be one of ${params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}` }
  return { segments, message: error.message ?? 'is not valid' }
}

/** Replaces `${NAME}` in the credential values with the environment's values; problems for those unset. */
function resolveCredentials (state: DeclaredStateValue, env: Readonly<Record<string, string | undefined>>, problem: (segments: Array<string | number>, message: string) => void): void {
  ;(state.providers ?? []).forEach((provider, i) => {
    const headers = provider.auth_headers
    if (headers == null) return
    for (const [name, value] of Object.entries(headers)) {
      if (typeof value !== 'string') continue
      headers[name] = value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (reference, variable: string) => {
        // An empty credential is no credential: as good as unset.
        const resolved = env[variable] === '' ? undefined : env[variable]
        if (resolved === undefined) problem(['providers', i, 'auth_headers', name], `environment variable ${variable} is not set`)
        return resolved ?? reference
      })
    }
  })
}

/** Every text in `value` that no database can store exactly, with its place. */
function unstorable (value: unknown, segments: Array<string | number>, found: Array<Array<string | number>>): void {
  if (typeof value === 'string') {
    if (!isStorableText(value)) found.push(segments)
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => { unstorable(item, [...segments, i], found) })
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) unstorable(item, [...segments, key], found)
  }
}

/** A file read and checked: the state as declared (credentials resolved) and its stored form. */
export interface DeclaredFile {
  readonly state: DeclaredStateValue
  readonly desired: Desired
}

/** Reads `text` (named `file` in problems) into a checked state; DeclaredFileError lists every problem. */
export function parseDeclaredFile (text: string, file: string, env: Readonly<Record<string, string | undefined>>): DeclaredFile {
  const lines = new LineCounter()
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: true, uniqueKeys: true })
  if (doc.errors.length > 0) {
    throw new DeclaredFileError(doc.errors.map((error) => ({
      file, path: '', line: error.linePos?.[0].line ?? null, message: (error.message.split('\n')[0] as string).replace(/ at line \d+, column \d+:?$/, '')
    })))
  }
  let value: unknown
  try {
    // Aliases expand in memory: bounded, so a small file cannot become a huge one.
    value = doc.toJS({ maxAliasCount: 100 }) ?? {}
  } catch (error) {
    throw new DeclaredFileError([{ file, path: '', line: null, message: (error as Error).message }])
  }
  if (!isMap(doc.contents) && !(value !== null && typeof value === 'object' && !Array.isArray(value))) {
    throw new DeclaredFileError([{ file, path: '', line: 1, message: `a state is a mapping with 'providers' and 'pools'${isSeq(doc.contents) ? ', not a list' : ''}` }])
  }
  const problems: FileProblem[] = []
  const problem = (segments: ReadonlyArray<string | number>, message: string) => {
    problems.push({ file, path: pathText(segments), line: lineOf(doc, lines, segments), message })
  }
  if (!validateState(value)) {
    for (const error of validateState.errors ?? []) {
      // A union's branches each report; the first of them says enough.
      if (error.keyword === 'anyOf') continue
      const { segments, message } = fromSchema(error)
      problem(segments, message)
    }
    throw new DeclaredFileError(dedupe(problems))
  }
  const state = value as DeclaredStateValue
  const bad: Array<Array<string | number>> = []
  unstorable(state, [], bad)
  for (const segments of bad) problem(segments, UNSTORABLE_TEXT.msg)
  resolveCredentials(state, env, problem)
  if (problems.length > 0) throw new DeclaredFileError(problems)
  try {
    return { state, desired: desiredState(state, []) }
  } catch (error) {
    if (!(error instanceof RequestValidationError)) throw error
    for (const issue of error.issues) problem(issue.loc, issue.msg)
    throw new DeclaredFileError(problems)
  }
}

/** The same problem reported twice (a union's branches) once. */
function dedupe (problems: FileProblem[]): FileProblem[] {
  const seen = new Set<string>()
  return problems.filter((p) => {
    const key = formatProblem(p)
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

/** Reads and checks the file at `path` (at most MAX_FILE_BYTES). */
export async function readDeclaredFile (path: string, env: Readonly<Record<string, string | undefined>>): Promise<DeclaredFile> {
  let size: number
  try {
    size = (await stat(path)).size
  } catch (error) {
    throw new DeclaredFileError([{ file: path, path: '', line: null, message: `cannot read it (${(error as NodeJS.ErrnoException).code ?? 'error'})` }])
  }
  if (size > MAX_FILE_BYTES) throw new DeclaredFileError([{ file: path, path: '', line: null, message: `is ${size} bytes; at most ${MAX_FILE_BYTES} are read` }])
  return parseDeclaredFile(await readFile(path, 'utf8'), path, env)
}
