#!/usr/bin/env node
// The `sourcepool` command. It runs the compiled CLI (dist/cli/main.js, built by `npm run build`
// or `npm start`) when that build is newer than every source it compiles, and the TypeScript
// (src/cli/main.ts) through tsx otherwise — a fresh clone, or sources changed since the build —
// so a call never runs stale code, and a built one skips tsx's start (about a second).
// Run by `npx`, it also stops when npx is told to (see `followNpx`).
import { builtAndCurrent } from './dist-current.mjs'

/**
 * npx runs this command through `sh -c` and passes a SIGTERM to that shell only: the shell ends
 * and this process, its child, would go on, orphaned (a `serve` or `demo` serving on). So, run by
 * npx (npm_command=exec), a parent that goes away is taken as a SIGTERM: `serve` and `demo` stop
 * as they do on one, anything else ends.
 */
function followNpx () {
  if (process.env.npm_command !== 'exec') return
  const parent = process.ppid
  const watch = setInterval(() => {
    if (process.ppid === parent) return
    clearInterval(watch)
    process.kill(process.pid, 'SIGTERM')
  }, 200)
  watch.unref()
}

followNpx()
let cli
if (builtAndCurrent('dist/cli/main.js')) {
  cli = await import('../dist/cli/main.js')
} else {
  const { register } = await import('tsx/esm/api')
  register()
  cli = await import('../src/cli/main.ts')
}
await cli.run()
