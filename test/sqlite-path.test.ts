/**
 * A SQLite path that cannot be created stops start-up at once, in one line naming
 * the file and why, with exit code 1: a directory that refuses children (/proc: it
 * used to spin at full CPU with no word), a file in the way, no permission.
 *
 * Root ignores file permissions, so as root the server runs as `nobody` where they matter.
 */
import assert from 'node:assert/strict'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { createDb } from '../src/db/create-db.js'
import { DatabaseStartupError } from '../src/db/errors.js'
import { runMain, type RunAs } from './server-process.js'

/** Someone whom file permissions apply to: ourselves, or `nobody` when we are root. */
const unprivileged: RunAs | undefined = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined

/** Runs the server entry on `file`, which must fail to start at once; resolves with its stderr. */
async function failedStart (file: string, user?: RunAs): Promise<string> {
  // Far longer than a start takes (tsx included), far shorter than the old spin.
  const { code, stderr } = await runMain({ DATABASE_URL: `sqlite:${file}`, PORT: '0' }, user, 20_000)
  assert.equal(code, 1, `exit code ${code} (null: still running after 20 s): ${stderr}`)
  return stderr
}

describe('a SQLite path that cannot be created', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sourcepool-sqlite-path-'))
  // Searchable by the unprivileged user.
  chmodSync(dir, 0o755)
  after(() => { rmSync(dir, { recursive: true, force: true }) })

  it('under a directory that refuses new ones (/proc) fails at once, naming the file and why', async () => {
    assert.equal(await failedStart('/proc/nope/x.db'),
      'sourcepool: failed to start: cannot create /proc/nope/x.db: the directory /proc/nope cannot be created (ENOENT)\n')
  })

  it('behind a file where a directory should be fails naming that file, and creates nothing', async () => {
    const plain = join(dir, 'plain')
    writeFileSync(plain, '')
    for (const file of [join(plain, 'pools.db'), join(plain, 'sub', 'pools.db')]) {
      await assert.rejects(createDb(`sqlite:${file}`), (error: unknown) => error instanceof DatabaseStartupError &&
        error.message === `cannot create ${file}: ${plain} is not a directory`, file)
    }
    const deeper = join(dir, 'made', 'plain')
    mkdirSync(join(dir, 'made'))
    writeFileSync(deeper, '')
    await assert.rejects(createDb(`sqlite:${join(deeper, 'a', 'b', 'pools.db')}`), { message: `cannot create ${join(deeper, 'a', 'b', 'pools.db')}: ${deeper} is not a directory` })
    assert.equal(existsSync(join(deeper, 'a')), false)
  })

  it('in or under a read-only directory fails naming the directory it may not write in', async () => {
    const readOnly = join(dir, 'locked')
    mkdirSync(readOnly)
    chmodSync(readOnly, 0o555)
    const nested = join(readOnly, 'sub', 'pools.db')
    const direct = join(readOnly, 'pools.db')
    const [inSub, inDir] = await Promise.all([failedStart(nested, unprivileged), failedStart(direct, unprivileged)])
    assert.equal(inSub, `sourcepool: failed to start: cannot create ${nested}: permission denied to create the directory ${join(readOnly, 'sub')}\n`)
    assert.equal(inDir, `sourcepool: failed to start: cannot create ${direct}: permission denied to write in ${readOnly}\n`)
  })

  it('creates the missing directories of a good path', async () => {
    const file = join(dir, 'a', 'b', 'c', 'pools.db')
    await (await createDb(`sqlite:${file}`)).close()
    assert.equal(existsSync(file), true)
  })
})
