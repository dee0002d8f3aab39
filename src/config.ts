/**
 * Configuration from the environment: validated once, frozen, and turned into
 * one clear line (and exit code 2 in `main.ts`) when a value is wrong.
 */
import { readFileSync } from 'node:fs'
import { isIP } from 'node:net'
import { availableParallelism } from 'node:os'
import { isPlaceholderPassword, PLACEHOLDER_HINT } from './auth/placeholder-secrets.js'
import { parseTokens, type Token } from './auth/tokens.js'

/** The validated, read-only settings the service runs with. */
export interface Config {
  readonly host: string
  readonly port: number
  /** PROXY_PORT: a second listener serving only the data plane (proxied requests), or null (one port). */
  readonly proxyPort: number | null
  /** PROXY_HOST: the address of that listener (default HOST). */
  readonly proxyHost: string
  readonly logLevel: string
  readonly databaseUrl: string
  /** Largest accepted request body, in bytes. */
  readonly bodyLimit: number
  /** Bearer tokens; empty means the service is open (loopback only unless allowed). */
  readonly authTokens: readonly Token[]
  /** Admin requests per minute per token (or per address when anonymous); null: not limited. */
  readonly adminRateLimit: number | null
  /** Failed authentications per minute per address before 429; null: not limited. */
  readonly authFailureLimit: number | null
  /** `/openapi.json` and `/docs` without a token (false: they need `read`). */
  readonly publicDocs: boolean
  /** How long in-flight requests may take to finish after SIGTERM/SIGINT. */
  readonly shutdownTimeoutMs: number
  /** How long a whole request (headers and body) may take to arrive. */
  readonly requestTimeoutMs: number
  /** How long the request headers may take to arrive. */
  readonly headersTimeoutMs: number
  /** How long an idle keep-alive connection is kept open. */
  readonly keepAliveTimeoutMs: number
  /** Refusals (403s learned by the proxy) kept per provider; the soonest to expire go first. */
  readonly maxRefusalsPerProvider: number
  /** Audit records older than this many days are deleted in the background; null keeps them all. */
  readonly auditMaxAgeDays: number | null
  /** How often the proxy's counters, outcomes and health changes are written down (and other processes' read). */
  readonly flushIntervalMs: number
  /** Active health checks run at once by this process (HEALTH_CHECK_CONCURRENCY). */
  readonly healthCheckConcurrency: number
  /** A declared state file applied at start (CONFIG_FILE), or null. */
  readonly configFile: string | null
  /** Event streams: heartbeat interval, most at once, bytes one may hold unsent before it is dropped. */
  readonly eventsHeartbeatMs: number
  readonly eventsMaxClients: number
  readonly eventsClientBufferBytes: number
  /** How long a replaying event stream may wait for its client to take what it holds before it is cut. */
  readonly eventsStallMs: number
  /** History records kept per pool (the newest); null keeps them all. */
  readonly historyMaxPerPool: number | null
  /** History records older than this many days are deleted in the background; null keeps them. */
  readonly historyMaxAgeDays: number | null
  /** Origins whose pages may call the API from a browser (CORS_ORIGINS): `*` for any, a list, or null (CORS off). */
  readonly corsOrigins: '*' | readonly string[] | null
  /**
   * Who may tell the client's address (`X-Forwarded-For`) and scheme (TRUST_PROXY):
   * false (nobody: the connecting peer is the client), true (any peer), a hop count,
   * or the front doors' addresses and CIDR ranges.
   */
  readonly trustProxy: boolean | number | readonly string[]
  /** The proxy's response cache: Redis (CACHE_URL, shared by every instance) or null for this process's memory. */
  readonly cacheUrl: string | null
  /** What every Redis key of the cache starts with (CACHE_KEY_PREFIX): deployments sharing one Redis keep apart by it. */
  readonly cacheKeyPrefix: string
  /** Bytes the memory cache may hold (CACHE_MAX_BYTES); the least recently used entries go first. */
  readonly cacheMaxBytes: number
  /** Largest answer body stored (CACHE_MAX_ENTRY_BYTES); bigger answers stream through unstored. */
  readonly cacheMaxEntryBytes: number
  /** Serving processes on the one port (WORKERS): 1 is this process alone; more run under a cluster primary (workers.ts). */
  readonly workers: number
}

/** Thrown for a bad setting; its message names the variable and what is allowed. */
export class ConfigError extends Error {}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']

export const DEFAULT_DATABASE_URL = 'sqlite:./data/pools.db'

/** Reads the environment (see the README's configuration table); throws ConfigError on the first bad value. */
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

  const { proxyPort, proxyHost } = readProxyListener(env, host, port)

  const logLevel = env.LOG_LEVEL?.trim().toLowerCase() || 'info'
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL: '${logLevel}' is not one of ${LOG_LEVELS.join(', ')}`)
  }

  const databaseUrl = env.DATABASE_URL?.trim() || DEFAULT_DATABASE_URL
  validateDatabaseUrl(databaseUrl)

  const authTokens = readTokens(env)
  const allowUnauthenticated = readBoolean(env, 'ALLOW_UNAUTHENTICATED')
  if (authTokens.length === 0 && !allowUnauthenticated && !isLoopback(host)) {
    throw new ConfigError(`HOST: refusing to serve ${host} without authentication; set AUTH_TOKENS (or AUTH_TOKENS_FILE), or ALLOW_UNAUTHENTICATED=true`)
  }
  if (proxyPort !== null && authTokens.length === 0 && !allowUnauthenticated && !isLoopback(proxyHost)) {
    throw new ConfigError(`PROXY_HOST: refusing to serve ${proxyHost} without authentication; set AUTH_TOKENS (or AUTH_TOKENS_FILE), or ALLOW_UNAUTHENTICATED=true`)
  }

  const adminRateLimit = readOptionalInteger(env, 'ADMIN_RATE_LIMIT', null, 1, 1_000_000)
  const authFailureLimit = readOptionalInteger(env, 'AUTH_FAILURE_LIMIT', 30, 1, 1_000_000)
  const publicDocs = readBoolean(env, 'PUBLIC_DOCS', true)
  const shutdownTimeoutMs = readInteger(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000)
  const requestTimeoutMs = readInteger(env, 'REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000)
  const headersTimeoutMs = readInteger(env, 'HEADERS_TIMEOUT_MS', Math.min(10_000, requestTimeoutMs), 100, 3_600_000)
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new ConfigError(`HEADERS_TIMEOUT_MS: ${headersTimeoutMs} is longer than REQUEST_TIMEOUT_MS (${requestTimeoutMs}); the headers are part of the request`)
  }
  const keepAliveTimeoutMs = readInteger(env, 'KEEP_ALIVE_TIMEOUT_MS', 72_000, 100, 3_600_000)
  const maxRefusalsPerProvider = readInteger(env, 'MAX_REFUSALS_PER_PROVIDER', 1000, 1, 1_000_000)
  const auditMaxAgeDays = readOptionalInteger(env, 'AUDIT_MAX_AGE_DAYS', null, 1, 36_500)
  const flushIntervalMs = readInteger(env, 'FLUSH_INTERVAL_MS', 100, 10, 60_000)
  const healthCheckConcurrency = readInteger(env, 'HEALTH_CHECK_CONCURRENCY', 16, 1, 1000)
  const eventsHeartbeatMs = readInteger(env, 'EVENTS_HEARTBEAT_MS', 15_000, 100, 600_000)
  const eventsMaxClients = readInteger(env, 'EVENTS_MAX_CLIENTS', 1000, 1, 100_000)
  const eventsClientBufferBytes = readInteger(env, 'EVENTS_CLIENT_BUFFER_BYTES', 1024 * 1024, 1024, 256 * 1024 * 1024)
  const eventsStallMs = readInteger(env, 'EVENTS_STALL_MS', 30_000, 100, 600_000)
  const historyMaxPerPool = readOptionalInteger(env, 'HISTORY_MAX_PER_POOL', 10_000, 10, 100_000_000)
  const historyMaxAgeDays = readOptionalInteger(env, 'HISTORY_MAX_AGE_DAYS', null, 1, 36_500)
  const corsOrigins = readCorsOrigins(env)
  const trustProxy = readTrustProxy(env)
  const cacheUrl = env.CACHE_URL?.trim() || null
  if (cacheUrl !== null && !/^rediss?:\/\//.test(cacheUrl)) throw new ConfigError('CACHE_URL: must be a redis:// or rediss:// URL')
  const cacheKeyPrefix = env.CACHE_KEY_PREFIX ?? 'sourcepool:cache:'
  if (cacheKeyPrefix.length > 200 || /[\s]/.test(cacheKeyPrefix)) throw new ConfigError('CACHE_KEY_PREFIX: at most 200 characters, no spaces')
  const cacheMaxBytes = readInteger(env, 'CACHE_MAX_BYTES', 64 * 1024 * 1024, 0, 64 * 1024 * 1024 * 1024)
  const cacheMaxEntryBytes = readInteger(env, 'CACHE_MAX_ENTRY_BYTES', 1024 * 1024, 0, 512 * 1024 * 1024)
  const workers = readWorkers(env)
  if (workers > 1 && databaseUrl === 'sqlite::memory:') {
    throw new ConfigError(`WORKERS: ${workers} workers cannot share sqlite::memory: (each would have a database of its own); give DATABASE_URL a file or PostgreSQL`)
  }

  return Object.freeze({
    host,
    port,
    proxyPort,
    proxyHost,
    logLevel,
    databaseUrl,
    bodyLimit: 1024 * 1024,
    authTokens,
    adminRateLimit,
    authFailureLimit,
    publicDocs,
    shutdownTimeoutMs,
    requestTimeoutMs,
    headersTimeoutMs,
    keepAliveTimeoutMs,
    maxRefusalsPerProvider,
    auditMaxAgeDays,
    flushIntervalMs,
    healthCheckConcurrency,
    configFile: env.CONFIG_FILE === undefined || env.CONFIG_FILE === '' ? null : env.CONFIG_FILE,
    eventsHeartbeatMs,
    eventsMaxClients,
    eventsClientBufferBytes,
    eventsStallMs,
    historyMaxPerPool,
    historyMaxAgeDays,
    corsOrigins,
    trustProxy,
    cacheUrl,
    cacheKeyPrefix,
    cacheMaxBytes,
    cacheMaxEntryBytes,
    workers
  })
}

/** The most serving processes WORKERS may ask for (`auto` on a bigger machine is held to it too). */
export const MAX_WORKERS = 64

/** WORKERS: a whole number from 1 to MAX_WORKERS, or `auto` (the cores Node may use, os.availableParallelism()). */
function readWorkers (env: NodeJS.ProcessEnv): number {
  const text = env.WORKERS?.trim().toLowerCase() ?? ''
  if (text === '') return 1
  if (text === 'auto') return Math.min(Math.max(1, availableParallelism()), MAX_WORKERS)
  const value = Number(text)
  if (!/^\d+$/.test(text) || value < 1 || value > MAX_WORKERS) throw new ConfigError(`WORKERS: '${text}' is not a whole number from 1 to ${MAX_WORKERS}, or auto`)
  return value
}

/** PROXY_PORT and PROXY_HOST: unset, no second listener; never the main port's own address. */
function readProxyListener (env: NodeJS.ProcessEnv, host: string, port: number): { proxyPort: number | null, proxyHost: string } {
  const proxyHost = env.PROXY_HOST?.trim() || host
  if (!isIP(proxyHost) && !/^[a-zA-Z0-9.-]{1,253}$/.test(proxyHost)) throw new ConfigError(`PROXY_HOST: '${proxyHost}' is not an IP address or host name`)
  const text = env.PROXY_PORT?.trim() ?? ''
  if (text === '') {
    if (env.PROXY_HOST?.trim()) throw new ConfigError('PROXY_HOST: set PROXY_PORT too (PROXY_HOST is the address of the PROXY_PORT listener)')
    return { proxyPort: null, proxyHost }
  }
  const proxyPort = Number(text)
  if (!/^\d+$/.test(text) || proxyPort < 0 || proxyPort > 65535) throw new ConfigError(`PROXY_PORT: '${text}' is not a port number (0-65535)`)
  if (proxyPort !== 0 && proxyPort === port && proxyHost === host) throw new ConfigError(`PROXY_PORT: ${proxyPort} is PORT itself; the data plane is served there already (unset PROXY_PORT, or pick another)`)
  return { proxyPort, proxyHost }
}

function isLoopback (host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
}

function readBoolean (env: NodeJS.ProcessEnv, name: string, fallback = false): boolean {
  const text = env[name]?.trim().toLowerCase() ?? ''
  if (text === '') return fallback
  if (text === 'false' || text === '0') return false
  if (text === 'true' || text === '1') return true
  throw new ConfigError(`${name}: '${text}' is not true or false`)
}

function readInteger (env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const text = env[name]?.trim() ?? ''
  if (text === '') return fallback
  const value = Number(text)
  if (!/^\d+$/.test(text) || value < min || value > max) throw new ConfigError(`${name}: '${text}' is not a whole number from ${min} to ${max}`)
  return value
}

/** Like readInteger, but `off` (or `0`) turns the setting off (null). */
function readOptionalInteger (env: NodeJS.ProcessEnv, name: string, fallback: number | null, min: number, max: number): number | null {
  const text = env[name]?.trim().toLowerCase() ?? ''
  if (text === 'off' || text === '0') return null
  if (text === '') return fallback
  const value = Number(text)
  if (!/^\d+$/.test(text) || value < min || value > max) throw new ConfigError(`${name}: '${text}' is not a whole number from ${min} to ${max}, or off`)
  return value
}

/**
 * CORS_ORIGINS: `*`, or origins separated by commas, each as a browser sends it in
 * `Origin` (`https://dash.example.com`, `http://localhost:5173`); a path, a query or a
 * trailing slash is refused, since no browser would ever send it and the origin would
 * silently never match. `null` is refused too: any site can make a browser send
 * `Origin: null` (a sandboxed frame), so allowing it would allow every site, quietly.
 */
function readCorsOrigins (env: NodeJS.ProcessEnv): '*' | string[] | null {
  const text = env.CORS_ORIGINS?.trim() ?? ''
  if (text === '') return null
  if (text === '*') return '*'
  const origins = text.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '')
  for (const origin of origins) {
    if (origin === 'null') {
      throw new ConfigError("CORS_ORIGINS: 'null' is the origin any site's sandboxed frame sends, so it would let every site in; serve the page from an http(s) origin, or set * if every site is what you mean")
    }
    let parsed: URL | undefined
    try { parsed = new URL(origin) } catch {}
    if (parsed === undefined || !/^https?:$/.test(parsed.protocol) || parsed.origin !== origin) {
      throw new ConfigError(`CORS_ORIGINS: '${origin}' is not an origin such as https://dash.example.com (scheme, host and port only), or *`)
    }
  }
  if (origins.length === 0) throw new ConfigError('CORS_ORIGINS: no origin given (an origin list, or *)')
  return origins
}

/** Names of address ranges Fastify's trust check knows (proxy-addr's). */
const TRUST_RANGES = ['loopback', 'linklocal', 'uniquelocal']

/**
 * TRUST_PROXY: `false` (or empty, `off`, `0`), `true`, a hop count (1-100), or
 * addresses and CIDR ranges separated by commas (`10.0.0.5,10.1.0.0/16,loopback`).
 */
function readTrustProxy (env: NodeJS.ProcessEnv): boolean | number | string[] {
  const text = env.TRUST_PROXY?.trim().toLowerCase() ?? ''
  if (text === '' || text === 'false' || text === 'off' || text === '0') return false
  if (text === 'true') return true
  if (/^\d+$/.test(text)) {
    const hops = Number(text)
    if (hops > 100) throw new ConfigError(`TRUST_PROXY: '${text}' is not a hop count from 1 to 100`)
    return hops
  }
  const entries = text.split(',').map((entry) => entry.trim())
  for (const entry of entries) {
    if (!isAddressOrRange(entry)) {
      throw new ConfigError(`TRUST_PROXY: '${entry}' is not an IP address or CIDR range (use true, a hop count, or addresses such as 10.0.0.5,10.1.0.0/16)`)
    }
  }
  return entries
}

function isAddressOrRange (entry: string): boolean {
  if (TRUST_RANGES.includes(entry)) return true
  const [address = '', prefix, ...rest] = entry.split('/')
  const version = isIP(address)
  if (version === 0 || rest.length > 0) return false
  if (prefix === undefined) return true
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128)
}

/** What Fastify's `trustProxy` option is given for the setting (a hop count as a function: see below). */
export function trustProxyOption (trust: Config['trustProxy']): boolean | string[] | ((address: string, hop: number) => boolean) {
  // Fastify no longer takes a number (a hop count cannot tell the front door from a
  // client connecting directly); the same trust as a function, documented as such.
  if (typeof trust === 'number') return (_address, hop) => hop < trust
  return typeof trust === 'boolean' ? trust : [...trust]
}

/** AUTH_TOKENS, or the file AUTH_TOKENS_FILE names (so secrets stay out of process listings). */
function readTokens (env: NodeJS.ProcessEnv): Token[] {
  const inline = env.AUTH_TOKENS?.trim() ?? ''
  const file = env.AUTH_TOKENS_FILE?.trim() ?? ''
  if (inline !== '' && file !== '') throw new ConfigError('AUTH_TOKENS: set either AUTH_TOKENS or AUTH_TOKENS_FILE, not both')
  let text = inline
  let name = 'AUTH_TOKENS'
  if (file !== '') {
    name = 'AUTH_TOKENS_FILE'
    try {
      text = readFileSync(file, 'utf8')
    } catch {
      throw new ConfigError(`AUTH_TOKENS_FILE: cannot read '${file}'`)
    }
  }
  try {
    return parseTokens(text)
  } catch (error) {
    throw new ConfigError(`${name}: ${(error as Error).message}`)
  }
}

/**
 * Accepts `sqlite:<path>`, `sqlite::memory:` and `postgres://` / `postgresql://` URLs
 * (the same thing to the driver; the errors name both). A password that is a
 * placeholder (the deployment example's `password`) is refused, never echoed.
 */
export function validateDatabaseUrl (url: string): void {
  if (url.startsWith('sqlite:')) {
    if (url.slice('sqlite:'.length).length === 0) {
      throw new ConfigError("DATABASE_URL: 'sqlite:' needs a file path (sqlite:./data/pools.db) or :memory:")
    }
    return
  }
  if (/^postgres(ql)?:\/\//.test(url)) {
    let parsed: URL
    try {
      parsed = new URL(url)
      if (!parsed.hostname && !parsed.searchParams.get('host')) throw new Error('no host')
    } catch {
      throw new ConfigError('DATABASE_URL: not a parseable postgres:// or postgresql:// URL')
    }
    if (isPlaceholderPassword(decodedPassword(parsed))) {
      throw new ConfigError(`DATABASE_URL: the password is a placeholder (${PLACEHOLDER_HINT}); give the database user's real password`)
    }
    return
  }
  throw new ConfigError("DATABASE_URL: must start with 'sqlite:', 'postgres://' or 'postgresql://'")
}

/** The URL's password as the driver reads it ('' for none). */
function decodedPassword (url: URL): string {
  try {
    return decodeURIComponent(url.password)
  } catch {
    return url.password
  }
}
