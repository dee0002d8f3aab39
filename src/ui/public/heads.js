// Why: how an evm pool's member's node head reads on the pool page: its head
// block, how far it is behind the pool's highest head, and whether it is left out
// of calls at the head for lagging (the status record's head_block, block_lag and
// lagging: docs/api.md, "Heads and lagging nodes"). Pure, so a test reads it in Node.

/** Whether a pool's members show their nodes' heads: an evm pool's (its record carries them). */
export const showsHeads = (status) => status.policy?.protocol === 'evm'

const UNKNOWN = 'Not known yet: a pool\'s nodes are asked their head only while it is used (from its first call until five minutes without one), by each process on its own.'

/** A block number (a decimal string of any length) with thousands separators. */
const grouped = (digits) => digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',')

/**
 * A member's head in words: `text` (the head block, or — while unknown), `behind`
 * (how far behind the highest head, or null), `lagging`, and a `title` saying more.
 */
export function headReading (member, maxLag) {
  if (member.head_block == null) return { text: '—', behind: null, lagging: false, title: UNKNOWN }
  const lag = member.block_lag
  const behind = lag == null ? null : lag === 0 ? 'at the head' : `${grouped(String(lag))} behind`
  const lagging = member.lagging === true
  const title = lagging
    ? `More than ${maxLag} blocks behind the pool's highest head: left out of calls at latest or pending, above its head, and head-dependent reads until it catches up.`
    : `Head block ${member.head_block}${lag == null ? '' : `, ${lag} behind the pool's highest head`}.`
  return { text: `#${grouped(member.head_block)}`, behind, lagging, title }
}
