/**
 * The Redis of the tests (TEST_REDIS_URL, as TEST_DATABASE_URL for PostgreSQL): the
 * suites that need one are skipped with a reason without it. Every key a test file
 * writes starts with its run's prefix, and the file removes them all when it ends, so
 * runs sharing one Redis never meet and leave nothing behind. A relay in front of it
 * lets a test make that Redis slow, silent or gone for its own connections alone.
 */
import { randomBytes } from 'node:crypto'
import { connect, createServer, type AddressInfo, type Socket } from 'node:net'
import { after } from 'node:test'
import { Redis } from 'ioredis'

export const redisUrl = process.env.TEST_REDIS_URL

/** The skip reason of a Redis suite, or undefined when a Redis is there. */
export const redisSkip = redisUrl === undefined ? 'set TEST_REDIS_URL=redis://127.0.0.1:6379 to run the Redis suites' : undefined

/** A prefix for this run's keys (`name` tells whose), removed with every key under it when the test file ends. */
export function redisRunPrefix (name: string): string {
  const prefix = `sourcepool:test:${name}:${process.pid}:${randomBytes(4).toString('hex')}:`
  after(async () => {
    if (redisUrl === undefined) return
    const redis = new Redis(redisUrl)
    const keys = await redis.keys(`${prefix}*`)
    if (keys.length > 0) await redis.del(...keys)
    await redis.quit()
  })
  return prefix
}

/**
 * A TCP relay in front of the test Redis, on a port of its own: what passes through it
 * is the real Redis' answers, which the test may hold back (a Redis that is slow, or
 * that does not answer at all) or cut off (a Redis that is gone), without touching the
 * Redis the other test files share.
 */
export interface RedisRelay {
  /** The relay's redis:// URL. */
  readonly url: string
  /** Holds Redis' answers back from now on, until release(). */
  hold (): void
  /** Sends what was held back, in order, and passes answers on as they come again. */
  release (): void
  /** Stops listening and drops every connection through it (a Redis that is gone). */
  down (): Promise<void>
  /** Listens again on the same port. */
  up (): Promise<void>
  close (): Promise<void>
}

/** A relay to the test Redis (`redisUrl`), its answers held back from the start when `held`. */
export async function startRedisRelay (held = false): Promise<RedisRelay> {
  const target = new URL(redisUrl as string)
  const sockets = new Set<Socket>()
  const waiting: Array<() => void> = []
  let holding = held
  const relay = createServer((client) => {
    const upstream = connect(Number(target.port || 6379), target.hostname)
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on('error', () => {})
      socket.on('close', () => { client.destroy(); upstream.destroy(); sockets.delete(socket) })
    }
    client.pipe(upstream)
    upstream.on('data', (chunk: Buffer) => {
      if (holding) waiting.push(() => client.write(chunk))
      else client.write(chunk)
    })
  })
  const listen = async (port: number): Promise<void> => { await new Promise<void>((resolve) => relay.listen(port, '127.0.0.1', resolve)) }
  await listen(0)
  const { port } = relay.address() as AddressInfo
  const url = new URL(target)
  url.hostname = '127.0.0.1'
  url.port = String(port)
  const down = async (): Promise<void> => {
    const closed = new Promise((resolve) => relay.close(resolve))
    for (const socket of sockets) socket.destroy()
    await closed
  }
  return {
    url: url.toString(),
    hold: () => { holding = true },
    release: () => {
      holding = false
      for (const send of waiting.splice(0)) send()
    },
    down,
    up: async () => { await listen(port) },
    close: async () => { if (relay.listening) await down() }
  }
}
