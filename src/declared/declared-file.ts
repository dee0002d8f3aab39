/**
 * A declared state file (YAML, or JSON, which YAML reads too) read into a checked
 * state: YAML errors, `${ENV_VAR}` references in credential values resolved from the
 * environment given (never written back out), the schema with unknown keys refused,
 * and the same field rules as the API. Every problem is reported at once, each with
 * the file, its path in the file (`pools[2].members[0].provider`) and its line.
 */
import { open } from 'node:fs/promises'
import { isMap, isSeq, LineCounter, parseDocument, type Document } from 'yaml'
import { issueText, RequestValidationError, type ValidationIssue } from '../errors.js'
import { checkBody } from '../http/json-parser.js'
import { atOnce, desiredState, misshapenIssues, type Desired } from './declared.desired.js'
import { STATE_LIMITS, stateTooLarge, type DeclaredStateValue } from './declared.schemas.js'
import { fillPlaceholders, shapeProblems } from './declared.shape.js'

/** The largest file read: the most a plan or apply body may be (STATE_LIMITS), so what a file holds can also be sent. */
export const MAX_FILE_BYTES = STATE_LIMITS.bytes

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
  const tooLarge = stateTooLarge(value)
  if (tooLarge !== undefined) throw new DeclaredFileError([{ file, path: '', line: null, message: tooLarge }])
  const problems: FileProblem[] = []
  const problem = (segments: ReadonlyArray<string | number>, message: string) => {
    problems.push({ file, path: pathText(segments), line: lineOf(doc, lines, segments), message })
  }
  // Where the state did not parse (the rules check around them), and the values left unfilled.
  const places: Array<ReadonlyArray<string | number>> = []
  const unset = new Set<string>()
  // Filled in first, so every rule below sees the values that will be stored.
  fillPlaceholders(value, env, (segments, variable) => {
    places.push(segments)
    unset.add(pathText(segments))
    problem(segments, `environment variable ${variable} is not set`)
  })
  // A place is told of once: a value left unfilled as unset, not again as (say) a URL
  // that is not one; a header value the shape refuses, not again as unstorable text.
  for (const { segments, message } of shapeProblems(value)) {
    places.push(segments)
    if (!unset.has(pathText(segments))) problem(segments, message)
  }
  const told = new Set(places.map(pathText))
  // The same walk as every JSON body gets: text no database stores exactly, nesting past the bound.
  for (const issue of bodyIssues(value)) {
    const segments = issue.loc.slice(1)
    places.push(segments)
    if (!told.has(pathText(segments))) problem(segments, issueText(issue))
  }
  if (problems.length > 0) {
    // Every problem in one pass: the rules and references checked wherever the state did parse.
    for (const issue of atOnce(misshapenIssues(value, [], places))) problem(issue.loc, issueText(issue))
    throw new DeclaredFileError(problems)
  }
  const state = value as DeclaredStateValue
  try {
    return { state, desired: desiredState(state, []) }
  } catch (error) {
    if (!(error instanceof RequestValidationError)) throw error
    for (const issue of error.issues) problem(issue.loc, issueText(issue))
    throw new DeclaredFileError(problems)
  }
}

/** checkBody's findings (its `loc`s under `body`), none when the text is storable. */
function bodyIssues (value: unknown): readonly ValidationIssue[] {
  try {
    checkBody(value)
    return []
  } catch (error) {
    if (!(error instanceof RequestValidationError)) throw error
    return error.issues
  }
}

/** Reads and checks the file at `path` (at most MAX_FILE_BYTES, whatever kind of file it is). */
export async function readDeclaredFile (path: string, env: Readonly<Record<string, string | undefined>>): Promise<DeclaredFile> {
  let text: string
  try {
    const handle = await open(path, 'r')
    try {
      // Read to one byte past the limit: a pipe or a device says nothing of its size beforehand.
      const buffer = Buffer.alloc(MAX_FILE_BYTES + 1)
      let size = 0
      while (size < buffer.length) {
        const { bytesRead } = await handle.read(buffer, size, buffer.length - size, null)
        if (bytesRead === 0) break
        size += bytesRead
      }
      if (size > MAX_FILE_BYTES) throw new DeclaredFileError([{ file: path, path: '', line: null, message: `is larger than ${MAX_FILE_BYTES} bytes, the most that is read` }])
      text = buffer.subarray(0, size).toString('utf8')
    } finally {
      await handle.close()
    }
  } catch (error) {
    if (error instanceof DeclaredFileError) throw error
    throw new DeclaredFileError([{ file: path, path: '', line: null, message: `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` }])
  }
  return parseDeclaredFile(text, path, env)
}
