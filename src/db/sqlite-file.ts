/**
 * The place of a SQLite file made ready before the file is opened: the missing
 * directories above it created one at a time, and every reason it cannot be
 * created said in one line, `cannot create <file>: <reason>`. Node's recursive
 * mkdir is not used: where a directory exists but refuses a child with ENOENT
 * (/proc, /sys) it tries again forever, at full CPU, saying nothing.
 */
import { accessSync, constants, existsSync, mkdirSync, statSync, type Stats } from 'node:fs'
import { dirname } from 'node:path'
import { DatabaseStartupError } from './errors.js'

const codeOf = (error: unknown) => (error as NodeJS.ErrnoException | null)?.code

/** Why `directory` could not be made (or written in: `making` false), in words. */
function reason (error: unknown, directory: string, making: boolean): string {
  const code = codeOf(error)
  if (code === 'EACCES' || code === 'EPERM') return making ? `permission denied to create the directory ${directory}` : `permission denied to write in ${directory}`
  if (code === 'EROFS') return `${directory} is on a read-only file system`
  if (code === 'ENOSPC') return `no space left on the device of ${directory}`
  return making ? `the directory ${directory} cannot be created (${code ?? String(error)})` : `${directory}: ${code ?? String(error)}`
}

const refused = (file: string, why: string) => new DatabaseStartupError(`cannot create ${file}: ${why}`)

/** The stats of `path`, or the error code that stopped stat. */
function statOf (path: string): Stats | string {
  try {
    return statSync(path)
  } catch (error) {
    return codeOf(error) ?? String(error)
  }
}

/**
 * Creates the directories above `file` that do not exist yet, nearest the root
 * first; throws DatabaseStartupError saying why one cannot be (a file in the way, no
 * permission, a file system that refuses).
 */
export function makeParentDirectories (file: string): void {
  const missing: string[] = []
  for (let directory = dirname(file); ; directory = dirname(directory)) {
    const found = statOf(directory)
    if (typeof found !== 'string') {
      if (!found.isDirectory()) throw refused(file, `${directory} is not a directory`)
      break
    }
    // ENOTDIR: a file further up is in the way, found on the way up.
    if (found !== 'ENOENT' && found !== 'ENOTDIR') throw refused(file, reason({ code: found }, directory, false))
    missing.unshift(directory)
    if (dirname(directory) === directory) break
  }
  for (const directory of missing) {
    try {
      mkdirSync(directory)
    } catch (error) {
      if (codeOf(error) === 'EEXIST') {
        // Made meanwhile by another process starting on the same path; or a file put there.
        const made = statOf(directory)
        if (typeof made !== 'string' && made.isDirectory()) continue
        throw refused(file, `${directory} is not a directory`)
      }
      throw refused(file, reason(error, directory, true))
    }
  }
}

/**
 * Why a SQLite file that SQLite could not open cannot be created, when that is the
 * reason (it does not exist and its directory refuses it); undefined otherwise.
 */
export function whyNotCreated (file: string): string | undefined {
  if (existsSync(file)) return undefined
  const directory = dirname(file)
  try {
    accessSync(directory, constants.W_OK | constants.X_OK)
  } catch (error) {
    return refused(file, reason(error, directory, false)).message
  }
  return undefined
}
