/**
 * Dates as HTTP writes them (RFC 9110 §5.6.7: IMF-fixdate, and the obsolete RFC 850
 * and asctime forms every recipient must read) and RFC 3339 date-times with an
 * offset, parsed strictly: an impossible date is no date. One parser for the
 * providers' Retry-After and resets and the cache's Expires.
 */

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec']
const IMF_FIXDATE = /^[a-z]{3}, (\d{2}) ([a-z]{3}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/i
const RFC_850 = /^[a-z]{6,9}, (\d{2})-([a-z]{3})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/i
const ASCTIME = /^[a-z]{3} ([a-z]{3}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/i
const RFC_3339 = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i

/** Milliseconds since the epoch of a valid UTC date, else undefined (31 Feb, 25:00 and the like). */
function utc (year: number, monthName: string, day: number, h: number, m: number, s: number): number | undefined {
  const month = MONTHS.indexOf(monthName.toLowerCase())
  const ms = Date.UTC(year, month, day, h, m, s)
  const d = new Date(ms)
  // Date.UTC carries an overflow into the next field (31 Feb → 3 Mar): a changed field shows it.
  const valid = month >= 0 && d.getUTCFullYear() === year && d.getUTCMonth() === month &&
    d.getUTCHours() === h && d.getUTCMinutes() === m && d.getUTCSeconds() === s
  return valid ? ms : undefined
}

/** An HTTP-date (RFC 9110 §5.6.7) or an RFC 3339 date-time with offset, in ms since the epoch. */
export function httpDateMs (text: string, nowMs: number): number | undefined {
  let p = IMF_FIXDATE.exec(text)
  if (p !== null) return utc(Number(p[3]), String(p[2]), Number(p[1]), Number(p[4]), Number(p[5]), Number(p[6]))
  p = RFC_850.exec(text)
  if (p !== null) {
    // A two-digit year more than 50 years ahead is in the past century (RFC 9110 §5.6.7).
    const thisYear = new Date(nowMs).getUTCFullYear()
    let year = Math.floor(thisYear / 100) * 100 + Number(p[3])
    if (year > thisYear + 50) year -= 100
    return utc(year, String(p[2]), Number(p[1]), Number(p[4]), Number(p[5]), Number(p[6]))
  }
  p = ASCTIME.exec(text)
  if (p !== null) return utc(Number(p[6]), String(p[1]), Number(String(p[2]).trim()), Number(p[3]), Number(p[4]), Number(p[5]))
  if (RFC_3339.test(text)) return Date.parse(text.replace(' ', 'T'))
  return undefined
}
