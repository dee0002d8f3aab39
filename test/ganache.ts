/**
 * Real local Ethereum nodes for the RPC pools' tests (issue 36): the npm package
 * `ganache`, listening on a free loopback port, mining a block per transaction
 * (instamine) or on demand (`evm_mine`), quiet. Shared by the tests that need one.
 */
import type { AddressInfo } from 'node:net'
import ganache from 'ganache'
import { upstream, type Upstream } from './upstreams.js'

export interface Node {
  readonly url: string
  /** Calls the node directly (not through a pool). */
  call: (method: string, params?: unknown[]) => Promise<unknown>
  close: () => Promise<void>
}

/** Starts a node with `accounts` funded accounts (chain id and network id 1337). */
export async function startNode (accounts = 2): Promise<Node> {
  const server = ganache.server({ logging: { quiet: true }, wallet: { totalAccounts: accounts, deterministic: true }, chain: { chainId: 1337, networkId: 1337 } })
  await server.listen(0, '127.0.0.1')
  const { port } = server.address() as AddressInfo
  const url = `http://127.0.0.1:${port}`
  let id = 0
  return {
    url,
    async call (method, params = []) {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }) })
      const answer = await res.json() as { result?: unknown, error?: { message: string } }
      if (answer.error !== undefined) throw new Error(answer.error.message)
      return answer.result
    },
    close: async () => { await server.close() }
  }
}

/** A loopback provider in front of `node`, recording the calls clients caused (head checks apart: upstreams.ts). */
export async function recorded (node: Node): Promise<Upstream> {
  return await upstream((_req, res, body) => {
    fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(async (answer) => {
      res.writeHead(answer.status, { 'content-type': 'application/json' })
      res.end(await answer.text())
    }, () => { res.destroy() })
  })
}
