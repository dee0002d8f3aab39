/**
 * Ethereum nodes whose chains are the same block for block, for the tests of streams
 * through a pool: a test kills the node serving an `eth_subscribe` and checks that the
 * client sees every block once, with the same hashes, from the next node. ganache makes
 * the same block from the same work when the wallet is deterministic, the chain id, the
 * genesis time (`chain.time`) and the step between block timestamps
 * (`miner.timestampIncrement`) are fixed; blocks come from `evm_mine` and from the same
 * signed transaction (mined at once, instamine) sent to every node.
 * Each node is reached through a TCP relay (HTTP and WebSocket on one port), because
 * ganache's own close says goodbye (close frame 1000); a crashed node does not, so `kill`
 * resets the relay's connections and stops listening: clients see 1006 and a refusal.
 */
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net'
import ganache from 'ganache'
import { parseAbi, toEventSelector, type Address, type Hex } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import type { Node } from './ganache.js'

/** ganache's deterministic wallet (`wallet.deterministic`): account 0 signs every transaction here. */
const MNEMONIC = 'myth like bonus scare over problem client lizard pioneer submit female collect'
const CHAIN_ID = 1337
/** The genesis block's time and the seconds between blocks: the same on every node. */
const GENESIS = new Date('2024-01-01T00:00:00Z')
const STEP_SECONDS = 12

/** The emitter's event: the caller (indexed) and how many times it was called, this call included. */
export const EMITTER_ABI = parseAbi(['event Ping(address indexed sender, uint256 count)'])
/**
 * Runtime code, on any call: count = storage[0] + 1; storage[0] = count; memory[0..32] = count;
 * LOG2(memory 0..32, Ping's selector, CALLER); STOP. 53 bytes.
 */
const RUNTIME = '6000546001018060005560005233' + '7f' + toEventSelector(EMITTER_ABI[0]).slice(2) + '60206000a200'
/** Init code: copy the runtime (at offset 12) to memory and return it as the contract's code. */
const DEPLOY = `0x6035600c60003960356000f3${RUNTIME}` as Hex

/** One node of the twins: `url` for HTTP, `wsUrl` for WebSocket, the same port. */
export interface TwinNode extends Node {
  readonly wsUrl: string
  /** False once killed. */
  readonly alive: boolean
}

/** The emitter contract, deployed at the same address on every node. */
export interface Emitter {
  readonly address: Address
  /** Calls it on every live node with one signed transaction (mined at once): a Ping log in a new block. */
  emit: () => Promise<Hex>
}

/** N nodes with one chain: every method works on the live nodes alike. */
export interface Twins {
  readonly nodes: TwinNode[]
  /** Mines `count` empty blocks on every live node. */
  mine: (count?: number) => Promise<void>
  /** Sends a signed transaction to every live node (each mines it at once); answers its hash. */
  sendRaw: (raw: Hex) => Promise<Hex>
  deployEmitter: () => Promise<Emitter>
  /** Node `index` crashes: its connections reset, its port refuses, its chain is gone. */
  kill: (index: number) => Promise<void>
  close: () => Promise<void>
}

/** Answers JSON-RPC calls to `url`, throwing the node's error. */
function caller (url: string): Node['call'] {
  let id = 0
  return async (method, params = []) => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }) })
    const answer = await res.json() as { result?: unknown, error?: { message: string } }
    if (answer.error !== undefined) throw new Error(answer.error.message)
    return answer.result
  }
}

/** A loopback port relaying every connection to `target`; `cut` resets them all and stops listening. */
async function relay (target: number): Promise<{ port: number, cut: () => Promise<void> }> {
  const clients = new Set<Socket>()
  const server: Server = createServer((client) => {
    const node = connect(target, '127.0.0.1')
    clients.add(client)
    client.pipe(node).pipe(client)
    const drop = () => { clients.delete(client); client.destroy(); node.destroy() }
    client.on('error', drop).on('close', drop)
    node.on('error', drop).on('close', drop)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as AddressInfo).port,
    cut: async () => {
      const closed = new Promise((resolve) => server.close(resolve))
      for (const client of clients) client.resetAndDestroy()
      await closed
    }
  }
}

async function startTwin (accounts: number): Promise<TwinNode & { kill: () => Promise<void> }> {
  const server = ganache.server({
    logging: { quiet: true },
    wallet: { totalAccounts: accounts, deterministic: true },
    chain: { chainId: CHAIN_ID, networkId: CHAIN_ID, time: GENESIS },
    miner: { timestampIncrement: STEP_SECONDS, instamine: 'eager' }
  })
  await server.listen(0, '127.0.0.1')
  const front = await relay((server.address() as AddressInfo).port)
  let alive = true
  const kill = async () => {
    if (!alive) return
    alive = false
    await front.cut()
    await server.close()
  }
  return {
    url: `http://127.0.0.1:${front.port}`,
    wsUrl: `ws://127.0.0.1:${front.port}`,
    get alive () { return alive },
    call: caller(`http://127.0.0.1:${front.port}`),
    close: kill,
    kill
  }
}

/** Starts `n` nodes with the same chain (genesis only), each with `accounts` funded accounts. */
export async function startTwins (n = 2, accounts = 2): Promise<Twins> {
  const nodes = await Promise.all(Array.from({ length: n }, async () => await startTwin(accounts)))
  const account = mnemonicToAccount(MNEMONIC)
  const live = () => {
    const found = nodes.filter((node) => node.alive)
    if (found.length === 0) throw new Error('every twin was killed')
    return found
  }
  const onEvery = async (method: string, params: unknown[] = []) => await Promise.all(live().map(async (node) => await node.call(method, params)))
  const sendRaw = async (raw: Hex) => (await onEvery('eth_sendRawTransaction', [raw]))[0] as Hex
  /** Signs a call from account 0 at its next nonce, gas and price fixed: the same bytes for every node. */
  const signed = async (tx: { to?: Address, data?: Hex, gas: bigint }) => {
    const nonce = Number(await live()[0]?.call('eth_getTransactionCount', [account.address, 'pending']))
    return await account.signTransaction({ chainId: CHAIN_ID, type: 'legacy', nonce, gasPrice: 20_000_000_000n, ...tx })
  }
  return {
    nodes,
    async mine (count = 1) {
      for (let i = 0; i < count; i++) await onEvery('evm_mine')
    },
    sendRaw,
    async deployEmitter () {
      const hash = await sendRaw(await signed({ data: DEPLOY, gas: 200_000n }))
      const receipt = await live()[0]?.call('eth_getTransactionReceipt', [hash]) as { contractAddress: Address, status: Hex }
      if (receipt.status !== '0x1') throw new Error('the emitter failed to deploy')
      const address = receipt.contractAddress
      return { address, emit: async () => await sendRaw(await signed({ to: address, gas: 100_000n })) }
    },
    kill: async (index) => { await nodes[index]?.kill() },
    close: async () => { await Promise.all(nodes.map(async (node) => { await node.kill() })) }
  }
}
