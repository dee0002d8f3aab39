/**
 * A pool addressed by name (`/p/{pool_name}/…`): the name's id, remembered in this
 * process and checked against the pool's row as the runtime keeps it (which
 * follows renames: this process's at once, other processes' at the next flush), so
 * a known name costs no database read; an unknown one is one indexed read of
 * `pools.name` (unique). What is remembered is bounded (MAX_NAMES).
 */
import type { WorkRunner } from '../db/work.js'
import { findPoolIdByName } from '../pools/pool.repository.js'
import type { PoolRuntime } from '../runtime/pool-runtime.js'

/** Names remembered at most; past it, the memory starts again (every name then costs one read). */
const MAX_NAMES = 10_000

/** Builds the name → id lookup. */
export function createPoolNames ({ database, runtime }: { database: WorkRunner, runtime: Pick<PoolRuntime, 'pool' | 'poolNow'> }) {
  const ids = new Map<string, number>()
  return {
    /** The name's id at once when it is remembered and the runtime holds its pool current under that name; else undefined (`byName`). */
    now: (name: string): number | undefined => {
      const known = ids.get(name)
      return known !== undefined && runtime.poolNow(known)?.name === name ? known : undefined
    },
    /** The name's id, read when not remembered; undefined when no pool has that name. */
    byName: async (name: string): Promise<number | undefined> => await idOf(name)
  }

  async function idOf (name: string): Promise<number | undefined> {
    const known = ids.get(name)
    if (known !== undefined) {
      if ((await runtime.pool(known))?.name === name) return known
      ids.delete(name)
    }
    const id = await database.read((db) => findPoolIdByName(db, name))
    if (id !== undefined) {
      if (ids.size >= MAX_NAMES) ids.clear()
      ids.set(name, id)
    }
    return id
  }
}
