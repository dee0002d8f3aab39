/**
 * Each pool's pipeline, compiled once per change of the pool (its `change_seq`)
 * from the stages its settings turn on: with a cache, the cache stages in front of
 * the attempts; without one, the attempts alone, so a request of a pool without a
 * cache never looks one up. An RPC pool (`protocol` `jsonrpc` or `evm`) puts its
 * JSON-RPC stage first (rpc-admit.ts); an `http` pool has none. The attempts themselves arm only what the pool uses (a
 * hedge timer with `hedge_after_ms`, a backoff with `retry_backoff_ms`). A pool the
 * runtime does not know goes to the attempts, which answer its 404. Compiled
 * pipelines are dropped with their pool. A fresh HIT of the memory store is
 * answered at once (`now`), without a promise.
 *
 * The data plane's files, in the order a request flows through them:
 *
 *   entry.ts (is it the data plane's?) → admit.ts (Host, token scope, body) →
 *   data-plane.ts (the pool, its pipeline, the answer; logs and metrics) → this file →
 *   rpc-admit.ts (RPC pools: a body that is not JSON-RPC; rpc-batch.ts, a batch call
 *   by call, its calls to one member sent as one upstream batch at the send step: rpc-batch-group.ts, rpc-batch-send.ts, 16 sends at once: rpc-batch-permits.ts; rpc-methods.ts, a method no member allows; rpc-logs.ts, an evm pool's wide eth_getLogs split; rpc-heads.ts, its lagging nodes left out; rpc-coalesce.ts, its identical reads shared and stored by finality; rpc-broadcast.ts, its transactions sent to every member with broadcast_writes) → cache-lookup.ts (key, HIT, STALE) → coalesce.ts (one request per key) →
 *   cache-fill.ts (the leader's fetch, stored) → forwarding.ts (choose, send,
 *   settle, hedge, per request) → upstream-client.ts (send) → attempt.ts (classify;
 *   rpc-answer.ts, an RPC call's answer by its body) → attempt-steps.ts (account: health, counters, log line) → reply.ts with
 *   answer-head.ts (answer).
 */
import type { PoolRuntime } from '../runtime/pool-runtime.js'
import { cacheOn, type AskedAtOnce, type CachedProxy, type CachingPool, type ServedAnswer } from './cached-proxy.js'
import type { ProxyRequest, RpcCallInfo } from './forward.js'
import type { ProxyService } from './proxy.service.js'
import { refusedByAll, RPC_PROTOCOLS, rpcAdmit } from './rpc-admit.js'
import { answerBatch } from './rpc-batch.js'
import { broadcastWrites, type MembersOf } from './rpc-broadcast.js'
import type { RpcCoalescing, SharingPool } from './rpc-coalesce.js'
import type { HeadPool, HeadTracker } from './rpc-heads.js'
import { methodRouted, type MethodRouting } from './rpc-methods.js'
import { splitLogs, type LogsPool } from './rpc-logs.js'

/** A compiled pipeline: what one request of the pool runs. */
type Run = (poolId: number, incoming: ProxyRequest) => Promise<ServedAnswer>

interface Compiled {
  readonly changeSeq: number
  readonly run: Run
  /** The answer at once when the pipeline can give one without waiting (a fresh HIT of the memory store). */
  readonly now: ((poolId: number, incoming: AskedAtOnce) => ServedAnswer | undefined) | undefined
}

/** What an evm pool's stage asks of the head tracker. */
type Heads = Pick<HeadTracker, 'use' | 'avoid' | 'highestHead'>

/** What an RPC pool's stages read of its row. */
type RpcPool = { readonly protocol: string, readonly broadcast_writes: number, readonly max_batch_size: number | null } & CachingPool & SharingPool & HeadPool & LogsPool

interface Deps {
  /** `members`: an evm pool's writes sent to each (rpc-broadcast.ts); without it (tests of other stages) a write goes to one member. */
  runtime: Pick<PoolRuntime, 'pool' | 'poolNow'> & MethodRouting & { members?: MembersOf }
  cache: Pick<CachedProxy, 'cached' | 'hitNow' | 'rpc'>
  attempts: Pick<ProxyService, 'forward'>
  /** The evm pools' heads; without it (tests of other stages) nothing is left out for lagging. */
  heads?: Heads
}

/**
 * An RPC pool's pipeline: its POSTs are JSON-RPC (rpc-admit.ts): one that is not is
 * answered before any other stage, a batch call by call through `inner` (rpc-batch.ts),
 * each call first past its method's routing (rpc-methods.ts).
 */
function rpcRun (sent: Run, coalescing: RpcCoalescing, routing: Deps['runtime'], heads: Heads | undefined, pool: RpcPool): Run {
  const evm = pool.protocol === 'evm'
  // With broadcast_writes, its eth_sendRawTransaction goes to every eligible member (rpc-broadcast.ts), past the heads' choice.
  const inner: Run = evm && pool.broadcast_writes === 1 && routing.members !== undefined ? broadcastWrites(sent, routing.members) : sent
  // A call avoids the nodes behind (rpc-heads.ts), then is shared with identical ones or answered from the store (rpc-coalesce.ts).
  const coalesced: Run = heads === undefined
    ? async (poolId, incoming) => await coalescing.answer(poolId, incoming, pool, inner)
    : async (poolId, incoming) => {
      const rpc = incoming.rpc
      const avoid = rpc === undefined ? undefined : heads.avoid(poolId, rpc.method, rpc.call.params)
      if (avoid !== undefined) incoming.rpc = { ...(rpc as RpcCallInfo), avoid }
      return await coalescing.answer(poolId, incoming, pool, inner)
    }
  // With a member's max_logs_range, its wide eth_getLogs calls are split (rpc-logs.ts), each range a call of its own.
  const split: Run = pool.max_logs_range != null ? splitLogs(coalesced, pool.max_logs_range, heads === undefined ? undefined : (poolId) => heads.highestHead(poolId)) : coalesced
  // The pool watched from its first call on; calls during the first round of head checks wait for it.
  const watched: Run = heads === undefined
    ? split
    : async (poolId, incoming) => {
      const first = heads.use(poolId, pool)
      if (first !== undefined) await first
      return await split(poolId, incoming)
    }
  const asked: Run = evm ? watched : inner
  // A method no member allows is answered before anything else (rpc-methods.ts).
  const routed = methodRouted(asked, routing)
  // A method every member refused is answered as a node answers it (-32601), not with the proxy's 502.
  const single: Run = async (poolId, incoming) => {
    const answer = await routed(poolId, incoming)
    return answer.kind === 'failed' && incoming.rpc !== undefined ? refusedByAll(answer, incoming.rpc) ?? answer : answer
  }
  return async (poolId, incoming) => {
    const admitted = rpcAdmit(incoming, evm)
    if (admitted === undefined) return await single(poolId, incoming)
    return 'answer' in admitted ? admitted.answer : await answerBatch(poolId, incoming, admitted.batch, single, { evm, largestBatch: pool.max_batch_size })
  }
}

/** Builds the pipelines; `forward` runs a request through its pool's. */
export function createPipelines ({ runtime, cache, attempts, heads }: Deps) {
  const compiled = new Map<number, Compiled>()
  const coalescing = cache.rpc
  const attemptsAlone: Run = async (poolId, incoming) => await attempts.forward(poolId, incoming)

  /** The pool's pipeline for its settings as of `changeSeq`. */
  function compile (pool: RpcPool & { readonly id: number, readonly change_seq: number }): Compiled {
    const caching = cacheOn(pool)
    const inner: Run = caching ? async (poolId, incoming) => await cache.cached(pool, poolId, incoming) : attemptsAlone
    const run: Run = RPC_PROTOCOLS.has(pool.protocol) ? rpcRun(inner, coalescing, runtime, heads, pool) : inner
    const made = { changeSeq: pool.change_seq, run, now: caching ? (poolId: number, incoming: AskedAtOnce) => cache.hitNow(pool, poolId, incoming) : undefined }
    compiled.set(pool.id, made)
    return made
  }

  return {
    /**
     * The answer at once, with no await, when the pool is held current and its pipeline
     * can give one so (a fresh HIT of the memory store); undefined otherwise (`forward`).
     */
    now (poolId: number, incoming: AskedAtOnce): ServedAnswer | undefined {
      const pool = runtime.poolNow(poolId)
      if (pool === undefined) return undefined
      const known = compiled.get(poolId)
      return (known !== undefined && known.changeSeq === pool.change_seq ? known : compile(pool)).now?.(poolId, incoming)
    },

    /** Answers a proxied request through its pool's pipeline (compiled again when the pool changed). */
    async forward (poolId: number, incoming: ProxyRequest): Promise<ServedAnswer> {
      const pool = await runtime.pool(poolId)
      if (pool === undefined) {
        compiled.delete(poolId)
        return await attemptsAlone(poolId, incoming)
      }
      const known = compiled.get(poolId)
      return await (known !== undefined && known.changeSeq === pool.change_seq ? known : compile(pool)).run(poolId, incoming)
    }
  }
}

export type Pipelines = ReturnType<typeof createPipelines>
