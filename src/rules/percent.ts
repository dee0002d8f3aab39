/**
 * Percentages as the original Python service wrote them: `round(x, n)` on the
 * float, which rounds the exact binary value to nearest and an exact tie to the
 * even digit (`round(3.125, 2)` is 3.12, `round(2.675, 2)` is 2.67). JavaScript's
 * `Math.round(x * 100) / 100` gives 3.13 and 2.68, so a client comparing values
 * with the original would see them differ.
 */

/** Python's `round(value, digits)` for a finite number and 0-20 digits. */
export function roundLikePython (value: number, digits: number): number {
  // Far from a tie, toFixed (which rounds the double's exact value) is already Python's answer.
  const scaled = Math.abs(value) * 10 ** digits
  if (Math.abs(scaled - Math.floor(scaled) - 0.5) > 1e-6) return Number(value.toFixed(digits))
  // Near one, toFixed rounds the exact value of the double (ties away from zero); at 100
  // digits it writes every digit a double in the ranges used here has, so a tie
  // is seen exactly: the digit after the last kept one is 5 and nothing follows.
  const exact = Math.abs(value).toFixed(100)
  const point = exact.indexOf('.')
  const rest = exact.slice(point + 1 + digits)
  const isTie = rest[0] === '5' && /^5?0*$/.test(rest)
  if (!isTie) return Number(value.toFixed(digits))
  const kept = exact.slice(0, point + 1 + digits).replace(/\.$/, '')
  const lastDigit = Number(kept[kept.length - 1])
  const step = 10 ** -digits
  const magnitude = Number(kept) + (lastDigit % 2 === 0 ? 0 : step)
  return Number((Math.sign(value) * magnitude).toFixed(digits))
}

/** `part / whole × 100` to `digits` decimals as the original wrote it; 0 when `whole` is 0. */
export function percentOf (part: number, whole: number, digits: number): number {
  return whole === 0 ? 0 : roundLikePython((part / whole) * 100, digits)
}
