/**
 * What pydantic 2.5 says of a refused date-time (`?since=`): the reason its
 * parser, speedate, gives (`datetime_parsing`), or `timezone_aware` for one
 * without an offset, worded for the rules this service adds (RFC 3339, years
 * 0000 to 9999: see validation.ts).
 */
import * as ajvFormats from 'ajv-formats'
import type { FormatsPlugin } from 'ajv-formats'
import type { Words } from './pydantic-errors.js'

/** ajv-formats' RFC 3339 check of a date-time, the one validation.ts's instances use (the plugin sits behind `default` from ESM). */
const isRfc3339 = ((ajvFormats as unknown as { default: FormatsPlugin }).default.get('date-time') as { validate: (text: string) => boolean }).validate

/** speedate's reasons (pydantic 2's date-time parser), as `datetime_parsing` gives them. */
const SPEEDATE = {
  tooShort: 'input is too short',
  extra: 'unexpected extra characters at the end of the input',
  dateTimeSep: 'invalid datetime separator, expected `T`, `t`, `_` or space',
  dateSep: 'invalid date separator, expected `-`',
  year: 'invalid character in year',
  month: 'invalid character in month',
  day: 'invalid character in day',
  timeSep: 'invalid time separator, expected `:`',
  hour: 'invalid character in hour',
  minute: 'invalid character in minute',
  second: 'invalid character in second',
  fraction: 'second fraction digits missing after `.`',
  tzSign: 'invalid timezone sign',
  tzHour: 'invalid timezone hour',
  tzMinute: 'invalid timezone minute',
  monthRange: 'month value is outside expected range of 1-12',
  dayRange: 'day value is outside expected range',
  hourRange: 'hour value is outside expected range of 0-23',
  minuteRange: 'minute value is outside expected range of 0-59',
  secondRange: 'second value is outside expected range of 0-59',
  tzMinuteRange: 'timezone minute value is outside expected range of 0-59',
  tzRange: 'timezone offset must be less than 24 hours'
} as const

/** The first thing speedate (0.13, pydantic-core 2.14's) finds wrong with `text` as a date-time, in its order; undefined when it reads it. */
function speedateProblem (text: string): string | undefined {
  const digits = (from: number, to: number) => /^\d+$/.test(text.slice(from, to)) && text.length >= to
  if (text.length < 10) return SPEEDATE.tooShort
  if (!digits(0, 4)) return SPEEDATE.year
  if (text[4] !== '-') return SPEEDATE.dateSep
  if (!digits(5, 7)) return SPEEDATE.month
  if (text[7] !== '-') return SPEEDATE.dateSep
  if (!digits(8, 10)) return SPEEDATE.day
  const [year, month, day] = [Number(text.slice(0, 4)), Number(text.slice(5, 7)), Number(text.slice(8, 10))]
  if (month < 1 || month > 12) return SPEEDATE.monthRange
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
  if (day < 1 || day > ([31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] as number)) return SPEEDATE.dayRange
  if (text.length === 10 || !'Tt_ '.includes(text[10] as string)) return SPEEDATE.dateTimeSep
  if (text.length < 16) return SPEEDATE.tooShort
  if (!digits(11, 13)) return SPEEDATE.hour
  if (text[13] !== ':') return SPEEDATE.timeSep
  if (!digits(14, 16)) return SPEEDATE.minute
  if (Number(text.slice(11, 13)) > 23) return SPEEDATE.hourRange
  if (Number(text.slice(14, 16)) > 59) return SPEEDATE.minuteRange
  let at = 16
  if (text[at] === ':') {
    if (!digits(at + 1, at + 3)) return SPEEDATE.second
    if (Number(text.slice(at + 1, at + 3)) > 59) return SPEEDATE.secondRange
    at += 3
    if (text[at] === '.' || text[at] === ',') {
      const fraction = /^\d*/.exec(text.slice(at + 1)) as RegExpExecArray
      if (fraction[0] === '') return SPEEDATE.fraction
      at += 1 + fraction[0].length
    }
  }
  if (at === text.length) return undefined
  if (text[at] === 'Z' || text[at] === 'z') {
    at += 1
  } else {
    if (text[at] !== '+' && text[at] !== '-') return SPEEDATE.tzSign
    if (!digits(at + 1, at + 3)) return SPEEDATE.tzHour
    const hours = Number(text.slice(at + 1, at + 3))
    at += 3
    if (text[at] === ':') at += 1
    else if (!/\d/.test(text[at] ?? '')) return SPEEDATE.tzMinute
    if (!digits(at, at + 2)) return SPEEDATE.tzMinute
    if (Number(text.slice(at, at + 2)) > 59) return SPEEDATE.tzMinuteRange
    if (hours > 23) return SPEEDATE.tzRange
    at += 2
  }
  return at === text.length ? undefined : SPEEDATE.extra
}

/**
 * What pydantic 2 says of a refused date-time: speedate's reason (`datetime_parsing`),
 * or, for one it reads but this service does not take, that it has no offset
 * (`timezone_aware`, as for pydantic's AwareDatetime), is not RFC 3339 (speedate also
 * reads `_` between date and time), or lies outside the years the service writes.
 */
export function dateTimeWords (text: string): Words {
  const offset = /(?:[Zz]|[+-]\d\d(?::?\d\d)?)$/.test(text)
  const error = speedateProblem(text) ??
    (!offset ? undefined : isRfc3339(text) ? 'the instant is outside the years 0000 to 9999' : 'not an RFC 3339 date-time')
  if (error === undefined) return { type: 'timezone_aware', msg: 'Input should have timezone info' }
  return { type: 'datetime_parsing', msg: `Input should be a valid datetime, ${error}`, ctx: { error } }
}
