/**
 * The upstream of the RPC pools' benchmark (rpc.ts): a fast scripted JSON-RPC node, as its own
 * process. A POST's call (or each call of a batch) is answered at once with
 * `{"jsonrpc":"2.0","id":<its id>,"result":"0x<64 hex>"}` (`eth_chainId`: `0x1`; `eth_blockNumber`:
 * `0x1000`, a chain's head; `eth_getBlockByNumber`: a small block with that number, the `finalized`
 * tag 64 blocks behind the head); a GET with a small JSON body cacheable for an hour, for an `http`
 * pool's cache HIT beside it. It counts what it is asked, so the bench can say how many upstream
 * calls each client request cost: `GET /count` answers `{"posts","calls","gets"}` (itself not
 * counted, nor an evm pool's head checks: they are the service's, not a client's).
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

/** The result of every call but `eth_chainId`: a 32-byte word, as an `eth_call` returns one. */
const WORD = `0x${'0123456789abcdef'.repeat(4)}`
const GET_BODY = JSON.stringify({ chain: 'bench', chain_id: 1, note: 'a small JSON answer, cacheable for an hour' })
const GET_HEADERS = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(GET_BODY)), 'cache-control': 'public, max-age=3600' }
const counts = { posts: 0, calls: 0, gets: 0 }

/** One call's answer object; anything that is not a call is answered -32600, as a node would. */
function answer (call: unknown): Record<string, unknown> {
  if (typeof call !== 'object' || call === null || Array.isArray(call)) return { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } }
  const { id, method, params } = call as { id?: unknown, method?: unknown, params?: unknown[] }
  return { jsonrpc: '2.0', id: id ?? null, result: resultOf(method, params) }
}

function resultOf (method: unknown, params: unknown[] | undefined): unknown {
  if (method === 'eth_chainId') return '0x1'
  if (method === 'eth_blockNumber') return HEAD
  if (method === 'eth_getBlockByNumber') {
    const number = params?.[0] === 'finalized' ? FINALIZED : params?.[0]
    return { number, hash: WORD, parentHash: WORD, timestamp: '0x6553f100', transactions: [] }
  }
  return WORD
}

const HEAD = '0x1000'
const FINALIZED = '0xfc0'

const server = createServer((req, res) => {
  if (req.method !== 'POST') {
    if (req.url === '/count') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(counts))
      return
    }
    counts.gets++
    res.writeHead(200, GET_HEADERS).end(GET_BODY)
    return
  }
  const check = req.headers['user-agent'] === 'sourcepool-head-check'
  if (!check) counts.posts++
  const chunks: Buffer[] = []
  req.on('data', (chunk: Buffer) => chunks.push(chunk))
  req.on('end', () => {
    let parsed: unknown
    try { parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) } catch { parsed = undefined }
    if (!check) counts.calls += Array.isArray(parsed) ? parsed.length : parsed === undefined ? 0 : 1
    const text = parsed === undefined
      ? '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}'
      : JSON.stringify(Array.isArray(parsed) ? parsed.map(answer) : answer(parsed))
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) }).end(text)
  })
})
server.keepAliveTimeout = 60_000
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`Server listening at http://127.0.0.1:${(server.address() as AddressInfo).port}\n`)
})
process.once('SIGTERM', () => { server.close(() => process.exit(0)); server.closeAllConnections() })
