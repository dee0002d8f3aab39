/**
 * The Redis of the tests (TEST_REDIS_URL, as TEST_DATABASE_URL for PostgreSQL): the
 * suites that need one are skipped with a reason without it. Every key a test file
 * writes starts with its run's prefix, and the file removes them all when it ends, so
 * runs sharing one Redis never meet and leave nothing behind.
 */
import { randomBytes } from 'node:crypto'
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
