/**
 * Query templates for the hot paths: a query is built and compiled by Kysely
 * once per database handle, and each call only fills in its parameters. Building
 * and compiling cost more than executing a cached SQLite statement, so this is
 * what makes a rotation cheap.
 *
 * The builder receives stand-ins for the parameters; Kysely passes them through
 * as bound values, and each call swaps them for the real ones. Only use it for
 * queries whose shape does not depend on the values (no `in` lists of varying length).
 */
import type { Compilable, CompiledQuery } from 'kysely'
import type { Db } from './types.js'

class Placeholder {
  constructor (readonly key: string) {}
}

/** Returns a function giving the query for `params`, compiled only on first use per database. */
export function prepared<P extends object, R> (
  build: (db: Db, params: P) => Compilable<R>
): (db: Db, params: P) => Compilable<R> {
  const compiledByDb = new WeakMap<Db, CompiledQuery<R>>()
  const placeholders = new Proxy({}, { get: (_target, key) => new Placeholder(String(key)) }) as P

  return (db, params) => {
    let compiled = compiledByDb.get(db)
    if (compiled === undefined) {
      compiled = build(db, placeholders).compile()
      compiledByDb.set(db, compiled)
    }
    const template = compiled
    return {
      compile: () => ({
        ...template,
        parameters: template.parameters.map((value) => value instanceof Placeholder ? (params as Record<string, unknown>)[value.key] : value)
      })
    }
  }
}
