/**
 * Configuration from the environment: validated once, frozen, and turned into
 * one clear line (and exit code 2 in `main.ts`) when a value is wrong.
 */
import { isIP } from 'node:net'

/** The validated, read-only settings the service runs with. */
export interface Config {
  readonly host: string
  readonly port: number
  readonly logLevel: string
  readonly databaseUrl: string
  /** Largest accepted request body, in bytes. */
  readonly bodyLimit: number
}

/** Thrown for a bad setting; its message names the variable and what is allowed. */
export class ConfigError extends Error {}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']

export const DEFAULT_DATABASE_URL = 'sqlite:./data/pools.db'

/** Reads HOST, PORT, LOG_LEVEL and DATABASE_URL; throws ConfigError on the first bad value. */
export function loadConfig (env: NodeJS.ProcessEnv = process.env): Config {
  const host = env.HOST?.trim() || '127.0.0.1'
  if (!isIP(host) && !/^[a-zA-Z0-9.-]{1,253}$/.test(host)) {
    throw new ConfigError(`HOST: '${host}' is not an IP address or host name`)
  }

  const portText = env.PORT?.trim() || '8000'
  const port = Number(portText)
  if (!/^\d+$/.test(portText) || port < 0 || port > 65535) {
    throw new ConfigError(`PORT: '${portText}' is not a port number (0-65535)`)
  }

  const logLevel = env.LOG_LEVEL?.trim().toLowerCase() || 'info'
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL: '${logLevel}' is not one of ${LOG_LEVELS.join(', ')}`)
  }

  const databaseUrl = env.DATABASE_URL?.trim() || DEFAULT_DATABASE_URL
  validateDatabaseUrl(databaseUrl)

  return Object.freeze({ host, port, logLevel, databaseUrl, bodyLimit: 1024 * 1024 })
}

/** Accepts `sqlite:<path>`, `sqlite::memory:` and `postgres://` / `postgresql://` URLs. */
export function validateDatabaseUrl (url: string): void {
  if (url.startsWith('sqlite:')) {
    if (url.slice('sqlite:'.length).length === 0) {
      throw new ConfigError("DATABASE_URL: 'sqlite:' needs a file path (sqlite:./data/pools.db) or :memory:")
    }
    return
  }
  if (/^postgres(ql)?:\/\//.test(url)) {
    try {
      const parsed = new URL(url)
      if (!parsed.hostname && !parsed.searchParams.get('host')) throw new Error('no host')
    } catch {
      throw new ConfigError('DATABASE_URL: not a parseable postgres:// URL')
    }
    return
  }
  throw new ConfigError("DATABASE_URL: must start with 'sqlite:' or 'postgres://'")
}
