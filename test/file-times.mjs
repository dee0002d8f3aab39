// A node:test reporter that lists the test files by how long each took (wall time, slowest first),
// so the suite's budget can be watched: `npm run test:unit` writes it to test-results/file-times.txt.
import { relative, resolve } from 'node:path'

export default async function * fileTimes (source) {
  const files = []
  for await (const event of source) {
    // A file run in its own process completes as a test named by the file's path.
    if (event.type === 'test:complete' && event.data.nesting === 0 && event.data.file !== undefined && resolve(event.data.name) === resolve(event.data.file)) {
      files.push({ file: relative(process.cwd(), resolve(event.data.file)), ms: event.data.details?.duration_ms ?? 0, passed: event.data.details?.passed })
    }
  }
  files.sort((a, b) => b.ms - a.ms)
  const total = files.reduce((sum, f) => sum + f.ms, 0)
  yield `${files.length} files, ${(total / 1000).toFixed(0)} s of file time in all\n`
  for (const f of files) yield `${(f.ms / 1000).toFixed(1).padStart(7)} s  ${f.passed === false ? 'FAILED ' : ''}${f.file}\n`
}
