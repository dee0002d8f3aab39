// Whether dist/ holds a build of the current sources, for the `sourcepool` command and the tests'
// server processes: each runs the compiled code when it is current (skipping tsx's start, about a
// second of CPU) and the TypeScript through tsx otherwise, so nothing ever runs stale code.
import { readdirSync, statSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

/** The last change of a path, in ms; -1 when it does not exist. */
const changed = (path) => statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? -1

/**
 * True when dist/ was built from the sources as they are: `tsc -b` writes dist/.tsbuildinfo last
 * at every build that changed something, so it must be newer than each file the build compiles
 * (src/**\/*.ts but tests and declarations) and the tsconfig files; `entry` must be there.
 */
export function builtAndCurrent (entry = 'dist/main.js') {
  const built = changed(`${ROOT}dist/.tsbuildinfo`)
  if (built < 0 || changed(`${ROOT}${entry}`) < 0) return false
  if (changed(`${ROOT}tsconfig.json`) > built || changed(`${ROOT}tsconfig.build.json`) > built) return false
  for (const file of readdirSync(`${ROOT}src`, { recursive: true })) {
    if (!file.endsWith('.ts') || file.endsWith('.test.ts') || file.endsWith('.d.ts')) continue
    if (changed(`${ROOT}src/${file}`) > built) return false
  }
  return true
}
