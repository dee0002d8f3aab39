/**
 * Real HTTP servers on loopback for the tests that call providers (the proxy, the
 * active health checks): each answers as the test says and records what it saw.
 * An evm pool's head checks (rpc-heads.ts, user-agent `sourcepool-head-check`) are
 * recorded apart, in `checks`, so that `seen` counts the calls clients caused.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** The user-agent of an evm pool's head checks. */
export const HEAD_CHECK_AGENT = 'sourcepool-head-check'

/** What an upstream saw of one request. */
export interface Seen { method: string, url: string, headers: IncomingMessage['headers'], body: string }

/** A real HTTP server on loopback that answers as `behave` says and records what it saw. */
export interface Upstream { url: string, seen: Seen[], checks: Seen[], close: () => Promise<void> }

export async function upstream (behave: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<Upstream> {
  const seen: Seen[] = []
  const checks: Seen[] = []
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = []
    req.on('data', (part: Buffer) => parts.push(part))
    req.on('end', () => {
      const body = Buffer.concat(parts).toString()
      ;(req.headers['user-agent'] === HEAD_CHECK_AGENT ? checks : seen).push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body })
      behave(req, res, body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    checks,
    close: async () => {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  }
}

export const json = (status: number, body: unknown, headers: Record<string, string> = {}) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers })
  res.end(JSON.stringify(body))
}

/** A URL nothing listens on. */
export async function refusingUrl (): Promise<string> {
  const closed = await upstream(() => {})
  await closed.close()
  return closed.url
}
