/**
 * A long unit of work shares the event loop (db/sqlite-dialect.ts, create-db.ts):
 * between its statements, and where it breathes in its own computing, other
 * callbacks run once it has worked for a slice, its transaction kept open. It stays
 * one transaction: all or nothing. On SQLite nothing else runs on the connection
 * meanwhile: reads and writes asked during it wait, in order, and see all of it or
 * (rolled back) none; /healthz's ping answers at once.
 */
import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { createDb, type DbHandle } from './create-db.js'
import type { Db } from './types.js'
import { breathe, execute, first, type Work } from './work.js'
import { describeOn, dialects, sqlite, type TestDatabase } from '../../test/helpers.js'

const AT = '2026-01-01T00:00:00.000Z'

const insertProvider = (db: Db, name: string) => execute(db.insertInto('providers').values({ name, created_at: AT, updated_at: AT }))

function * countProviders (db: Db, prefix: string): Work<number> {
  return Number((yield * first(db.selectFrom('providers').select((eb) => eb.fn.countAll<number>().as('n')).where('name', 'like', `${prefix}%`)))?.n)
}

/**
 * Counts the turns of the event loop (setImmediate) while it runs; `seen()` is the
 * count so far. A unit that never lets the loop turn sees the same count at its end.
 */
function turnCounter () {
  let turns = 0
  let running = true
  const turn = () => {
    turns++
    if (running) setImmediate(turn)
  }
  setImmediate(turn)
  return { seen: () => turns, stop: () => { running = false } }
}

/** Something to do once, at the first turn of the event loop after `start` is called. */
const atNextTurn = async <T>(run: () => Promise<T>): Promise<T> => await new Promise<T>((resolve, reject) => { setImmediate(() => { run().then(resolve, reject) }) })

for (const dialect of dialects) {
  // Enough statements for several slices on SQLite; PostgreSQL waits for the server at each.
  const rows = dialect.name === 'sqlite' ? 6000 : 400

  describeOn(dialect, 'a long unit of work shares the event loop', () => {
    let testDb: TestDatabase
    let database: DbHandle
    before(async () => {
      testDb = await dialect.create()
      database = await createDb(testDb.url)
    })
    after(async () => {
      await database?.close()
      await testDb?.drop()
    })

    it('lets the event loop turn between its statements, and commits them all', async () => {
      const turns = turnCounter()
      let atStart = -1
      let atEnd = -1
      await database.transact(function * (db) {
        atStart = turns.seen()
        for (let i = 0; i < rows; i++) yield * insertProvider(db, `long-${i}`)
        atEnd = turns.seen()
      })
      turns.stop()
      assert.ok(atEnd > atStart, `the event loop turned ${atEnd - atStart} times while the unit ran`)
      assert.equal(await database.read((db) => countProviders(db, 'long-')), rows)
    })

    it('lets the event loop turn where it breathes in its own computing', async () => {
      const turns = turnCounter()
      let atStart = -1
      let atEnd = -1
      await database.transact(function * (db) {
        yield * insertProvider(db, 'breathing')
        atStart = turns.seen()
        // About 100 ms of computing, in pieces of about a millisecond.
        const until = performance.now() + 100
        while (performance.now() < until) {
          const piece = performance.now() + 1
          while (performance.now() < piece);
          yield * breathe()
        }
        atEnd = turns.seen()
      })
      turns.stop()
      assert.ok(atEnd > atStart, `the event loop turned ${atEnd - atStart} times while the unit computed`)
    })

    it('rolls back the whole unit when its last statement fails, and keeps a write asked meanwhile', async () => {
      const turns = turnCounter()
      let meanwhile: Promise<void> | undefined
      const failing = database.transact(function * (db) {
        for (let i = 0; i < rows; i++) {
          yield * insertProvider(db, `failing-${i}`)
          // Once the event loop has turned during the unit: another write.
          meanwhile ??= turns.seen() > 1 ? database.transact((db) => insertProvider(db, 'kept-meanwhile')) : undefined
        }
        // A name already taken: a unique violation at the very end.
        yield * insertProvider(db, 'failing-0')
      })
      await assert.rejects(failing)
      turns.stop()
      assert.ok(meanwhile !== undefined, 'no write was asked while the unit ran')
      await meanwhile
      assert.equal(await database.read((db) => countProviders(db, 'failing-')), 0)
      assert.equal(await database.read((db) => countProviders(db, 'kept-meanwhile')), 1)
    })
  })
}

describeOn(sqlite, 'while a long unit holds the SQLite connection', () => {
  let database: DbHandle
  before(async () => { database = await createDb('sqlite::memory:') })
  after(async () => { await database?.close() })

  it('a read and a write asked meanwhile wait for it, in order, and see all of it; ping answers at once', async () => {
    const answered: string[] = []
    let asked: Promise<unknown> | undefined
    const long = database.transact(function * (db) {
      for (let i = 0; i < 6000; i++) {
        yield * insertProvider(db, `held-${i}`)
        if (i === 0) {
          // Asked from outside the unit, at the next turn of the event loop (while the unit still runs).
          asked = atNextTurn(async () => await Promise.all([
            database.ping().then(() => { answered.push('ping') }),
            database.read((db) => countProviders(db, 'held-')).then((n) => { answered.push(`read ${n}`) }),
            database.transact((db) => insertProvider(db, 'after-held')).then(() => { answered.push('write') })
          ]))
        }
      }
    }).then(() => { answered.push('long unit') })
    await long
    await asked
    assert.deepEqual(answered, ['ping', 'long unit', 'read 6000', 'write'])
  })

  it('a read asked while a long unit fails sees none of it', async () => {
    let seen: Promise<number> | undefined
    await assert.rejects(database.transact(function * (db) {
      for (let i = 0; i < 6000; i++) {
        yield * insertProvider(db, `undone-${i}`)
        if (i === 0) seen = atNextTurn(async () => await database.read((db) => countProviders(db, 'undone-')))
      }
      throw new Error('changed my mind')
    }), /changed my mind/)
    assert.equal(await seen, 0)
  })
})
