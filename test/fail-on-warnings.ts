/**
 * Preloaded by `npm run test:unit` (`--import`) into the test runner and into
 * every test file's process: a warning that means a leak (listeners piling up on
 * one emitter or signal) fails the run instead of scrolling past in its output.
 * Node still prints the warning itself; this adds which file it came from and
 * sets a failing exit code, which the runner reports as that file failing.
 */
import process from 'node:process'

/** Warnings that are bugs here, by name. */
const FATAL = new Set(['MaxListenersExceededWarning'])

process.on('warning', (warning) => {
  if (!FATAL.has(warning.name)) return
  process.exitCode = 1
  // The runner starts each test file in a process of its own, marked by NODE_TEST_CONTEXT.
  const where = process.env.NODE_TEST_CONTEXT === undefined ? 'the test runner' : process.argv[1] ?? 'a test file'
  process.stderr.write(`fail-on-warnings: ${warning.name} in ${where} fails the run: ${warning.message}\n`)
})
