/**
 * The shape of a declared state checked strictly, for files and request bodies
 * alike: unknown keys are refused, never dropped (the API's validator drops them
 * elsewhere, as FastAPI does, but a typo beside `prune: true` must not delete
 * everything); and the `${NAME}` placeholders that credentials, base and WebSocket
 * URLs and check paths may hold, filled in from an environment.
 */
import { Ajv, type ErrorObject } from 'ajv'
import { urlSchemes } from '../http/url-words.js'
import { DeclaredState } from './declared.schemas.js'

// verbose: the API answers these errors in pydantic's words, which need the value and schema of each.
const ajv = new Ajv({ allErrors: true, strict: false, verbose: true })
const validateState = ajv.compile(DeclaredState)

/** One thing wrong with a state's shape: where (`['pools', 2, 'name']`) and what. */
export interface ShapeProblem {
  readonly segments: Array<string | number>
  readonly message: string
  readonly keyword: string
}

/** An ajv error's place and words. */
function fromSchema (error: ErrorObject): ShapeProblem {
  const segments = error.instancePath.split('/').slice(1).map((part) => {
    const text = part.replace(/~1/g, '/').replace(/~0/g, '~')
    return /^\d+$/.test(text) ? Number(text) : text
  })
  const params = error.params as { additionalProperty?: string, missingProperty?: string, allowedValues?: unknown[] }
  const { keyword } = error
  if (params.additionalProperty !== undefined) return { segments: [...segments, params.additionalProperty], message: 'is not a field this object has', keyword }
  if (params.missingProperty !== undefined) return { segments, message: `is missing its required field '${params.missingProperty}'`, keyword }
  // A field that may be null (left to its default) names its values and type only, not null.
  if (params.allowedValues !== undefined) return { segments, message: `must be one of ${params.allowedValues.filter((v) => v !== null).map((v) => JSON.stringify(v)).join(', ')}`, keyword }
  if (keyword === 'type') {
    const types = ([] as unknown[]).concat((error.params as { type?: unknown }).type).filter((type) => type !== 'null')
    return { segments, message: `must be ${types.join(' or ')}`, keyword }
  }
  // A URL is checked with a pattern (as providers' base_url and ws_url): said in words, not as the expression.
  const schemes = keyword === 'pattern' ? urlSchemes({ pattern: (error.params as { pattern?: unknown }).pattern }) : undefined
  if (schemes !== undefined) return { segments, message: `must be ${schemes[0] === 'http' ? 'an' : 'a'} ${schemes[0]}:// or ${schemes[1]}:// URL, without spaces`, keyword }
  return { segments, message: error.message ?? 'is not valid', keyword }
}

/** ajv's findings on the shape of `value` (none: it is a DeclaredStateValue); the API answers them as a 422. */
export function shapeErrors (value: unknown): ErrorObject[] {
  return validateState(value) ? [] : [...(validateState.errors ?? [])]
}

/** Everything wrong with the shape of `value` (nothing: it is a DeclaredStateValue). */
export function shapeProblems (value: unknown): ShapeProblem[] {
  const seen = new Set<string>()
  // A union's branches each report; `anyOf` itself says nothing more.
  return shapeErrors(value).filter((error) => error.keyword !== 'anyOf').map(fromSchema).filter((problem) => {
    const key = `${problem.segments.join('/')}\n${problem.message}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

/** `${NAME}`, as credentials, base and WebSocket URLs and check paths may hold it. */
export const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g

/** The places of a provider that may hold placeholders, as paths under the provider. */
function placesOf (provider: Record<string, unknown>): Array<Array<string>> {
  const places: Array<Array<string>> = [['base_url'], ['ws_url']]
  const check = provider.health_check
  if (check !== null && typeof check === 'object') places.push(['health_check', 'path'])
  const headers = provider.auth_headers
  if (headers !== null && typeof headers === 'object') for (const name of Object.keys(headers)) places.push(['auth_headers', name])
  return places
}

/**
 * Fills in `${NAME}` in every provider's credential values, base and WebSocket URLs and check path
 * (in place) from `env`; `unset` is told of each variable unset or empty, with its place.
 */
export function fillPlaceholders (
  value: unknown, env: Readonly<Record<string, string | undefined>>, unset: (segments: Array<string | number>, variable: string) => void
): void {
  const providers = (value as { providers?: unknown } | null)?.providers
  if (!Array.isArray(providers)) return
  providers.forEach((provider: unknown, i) => {
    if (provider === null || typeof provider !== 'object') return
    for (const place of placesOf(provider as Record<string, unknown>)) {
      const holder = place.slice(0, -1).reduce<Record<string, unknown>>((at, key) => at[key] as Record<string, unknown>, provider as Record<string, unknown>)
      const key = place.at(-1) as string
      const text = holder[key]
      if (typeof text !== 'string') continue
      holder[key] = text.replace(PLACEHOLDER, (reference, variable: string) => {
        // An empty value is no value: as good as unset.
        const filled = env[variable] === '' ? undefined : env[variable]
        if (filled === undefined) unset(['providers', i, ...place], variable)
        return filled ?? reference
      })
    }
  })
}
