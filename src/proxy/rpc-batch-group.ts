/**
 * A client batch's calls gathered into upstream batches (issue 36 item 2): the calls
 * that the pipeline sends to the same member go to it as one JSON-RPC list, up to
 * the member's `max_batch_size` (rpc-batch-send.ts sends one). Each call still runs
 * the whole pipeline on its own (cache, coalescing, choice, quota, failover: a call
 * answered from the cache or by another's upstream call never reaches a list), and
 * only its send is shared; its quota was handed out by its own choice, as a single
 * call's is, so a per-call cost counts there and nowhere here.
 *
 * No timer decides what goes together. The batch (rpc-batch.ts) gives each call a
 * slot, open while the call is on its way to a send; a call reaching the send step
 * joins its member's group and closes its slot. A group is sent when it is full, and
 * every group when no slot is open any more: no call of the batch is still on its way.
 * A call that ends without a send (a HIT, a refusal, no member), or that waits on
 * something outside its batch (the answer of another client's identical call:
 * rpc-coalesce.ts; a member to come back: forwarding.ts), closes its slot first, so
 * that no group waits for it (two batches sharing calls would otherwise wait for each
 * other). A call whose slot is closed goes alone: a retry after a failure, a hedge,
 * a wait's end. So do a transaction (sent once: a refused list's resend must never
 * resend it), a notification or a null id (no answer to cut by), a call whose id is
 * in the group already (its answer could not be told apart), and any call to a
 * member with `max_batch_size` 1 or that refused a batch on this path
 * (rpc-batch-refusals.ts). Lists and calls sent alone take their turn among the
 * batch's sends: at most 16 upstream requests open at once (rpc-batch-permits.ts).
 */
import type { ProxyRequest } from './forward.js'
import { SendPermits, type BatchControl } from './rpc-batch-permits.js'
import { UpstreamGroup, type BatchVia, type GroupMember } from './rpc-batch-send.js'
import type { SendingPool, SentUpstream } from './upstream-client.js'

/** A batch's call on its way to a send (forward.ts ProxyRequest `upstreamBatch`). */
export class BatchSlot {
  private open = true

  constructor (private readonly gathering: BatchGathering) {}

  /** The call no longer heads for a send of its own (it ended, or waits on something else): its batch's groups stop waiting for it. */
  leave (): void {
    if (!this.open) return
    this.open = false
    this.gathering.left()
  }

  /** Sends the call (its attempt's upstream-client.ts `send`): in its member's group while the slot is open, else alone. */
  async send (via: BatchVia, incoming: ProxyRequest, path: string, pool: SendingPool, member: GroupMember, control?: BatchControl): Promise<SentUpstream> {
    const joining = this.open
    this.open = false
    return await this.gathering.send(joining, via, incoming, path, pool, member, control)
  }
}

/** One client batch's groups, per member, and how many of its calls are on their way. */
export class BatchGathering {
  /** The batch's upstream requests open at once (rpc-batch-permits.ts): lists and calls sent alone alike. */
  private readonly permits = new SendPermits()
  private onTheirWay = 0
  private readonly groups = new Map<number, UpstreamGroup>()

  /** A slot for one call of the batch, open until the call sends or leaves. */
  slot (): BatchSlot {
    this.onTheirWay++
    return new BatchSlot(this)
  }

  /** A call's slot closed without joining a group. */
  left (): void {
    if (--this.onTheirWay === 0) this.sendAll()
  }

  /** A call's send: `joining` (its slot was open) puts it in its member's group when it may go in one. */
  async send (joining: boolean, via: BatchVia, incoming: ProxyRequest, path: string, pool: SendingPool, member: GroupMember, control?: BatchControl): Promise<SentUpstream> {
    const id = incoming.rpc?.call.id
    const group = joining && id !== undefined && id !== null && incoming.rpc?.repeatable !== false && member.max_batch_size > 1 && !via.batchRefusals.refuses(member, path)
      ? this.groupOf(via, path, pool, member)
      : undefined
    if (group === undefined || group.has(id as string | number)) {
      const sending = this.permits.sendAlone(via.upstream, incoming, path, pool, member, control)
      if (joining) this.left()
      return await sending
    }
    const answer = group.add(incoming, id as string | number, control)
    if (group.size >= member.max_batch_size) {
      this.groups.delete(member.id)
      group.send()
    }
    if (--this.onTheirWay === 0) this.sendAll()
    return await answer
  }

  /** The member's open group (one per member: every call of a client batch goes to the same path). */
  private groupOf (via: BatchVia, path: string, pool: SendingPool, member: GroupMember): UpstreamGroup {
    let group = this.groups.get(member.id)
    if (group === undefined) this.groups.set(member.id, group = new UpstreamGroup(via, path, pool, member, this.permits))
    return group
  }

  /** No call is on its way: every group goes. */
  private sendAll (): void {
    const groups = [...this.groups.values()]
    this.groups.clear()
    for (const group of groups) group.send()
  }
}
