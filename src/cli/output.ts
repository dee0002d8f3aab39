/**
 * How the CLI shows things to a person: colour only on a terminal (never with
 * NO_COLOR, always with FORCE_COLOR), tables with aligned columns, a plan as a
 * diff (+ create, ~ update field by field, - delete), times as countdowns; or,
 * with --json, the service's answer as it came.
 */
import { styleText } from 'node:util'
import type { ChangeValue, PlanValue } from '../declared/declared.schemas.js'

type Style = Parameters<typeof styleText>[0]

const colour = process.env.FORCE_COLOR !== undefined && process.env.FORCE_COLOR !== '0'
  ? true
  : process.env.NO_COLOR === undefined && process.stdout.isTTY === true

/** Prints `value` as JSON (--json) or as `text()` says. */
export function print (options: { json?: boolean }, value: unknown, text: () => string): void {
  process.stdout.write(`${options.json === true ? JSON.stringify(value, null, 2) : text()}\n`)
}

/** `text` in `style` on a terminal, as it is elsewhere. */
export function paint (style: Style, text: string): string {
  return colour ? styleText(style, text) : text
}

/** Columns padded to their widest cell (colour codes not counted). */
export function table (header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  // eslint-disable-next-line no-control-regex -- the colour codes are what it strips
  const width = (cell: string) => cell.replace(/\u001b\[[0-9;]*m/g, '').length
  const widths = header.map((title, i) => Math.max(width(title), ...rows.map((row) => width(row[i] ?? ''))))
  const line = (cells: readonly string[]) => cells.map((cell, i) => i === cells.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - width(cell))).join('  ')
  return [paint('bold', line(header)), ...rows.map(line)].join('\n')
}

/** `value` as a plan shows it. */
function shown (value: unknown): string {
  return value === null || value === undefined ? '(none)' : typeof value === 'string' ? value : JSON.stringify(value)
}

const SIGNS: Record<ChangeValue['action'], [string, Style]> = { create: ['+', 'green'], update: ['~', 'yellow'], delete: ['-', 'red'] }

/** A plan as a diff, and its summary line. */
export function planText (plan: PlanValue): string {
  if (plan.changes.length === 0) return 'No changes: the service already matches the file.'
  const lines: string[] = []
  for (const change of plan.changes) {
    const [sign, style] = SIGNS[change.action]
    lines.push(paint(style, `${sign} ${change.kind} ${change.name}`))
    for (const [field, { from, to }] of Object.entries(change.fields)) {
      lines.push(change.action === 'create' ? paint(style, `    ${field}: ${shown(to)}`) : paint(style, `    ${field}: ${shown(from)} → ${shown(to)}`))
    }
  }
  const { create, update, delete: removed } = plan.summary
  lines.push('', `${plan.applied ? 'Applied' : 'Plan'}: ${create} to create, ${update} to update, ${removed} to delete.`)
  return lines.join('\n')
}

/** Seconds from `now` until `iso`, as `1m05s`; `now` when past. */
export function countdown (iso: string, now = Date.now()): string {
  const seconds = Math.max(0, Math.ceil((Date.parse(iso) - now) / 1000))
  if (seconds === 0) return 'now'
  const minutes = Math.floor(seconds / 60)
  return minutes === 0 ? `${seconds}s` : `${minutes}m${String(seconds % 60).padStart(2, '0')}s`
}

const HEALTH: Record<string, Style> = { healthy: 'green', probing: 'yellow', cooling_down: 'red' }

/** A member's health, coloured. */
export function healthText (health: string, enabled: boolean): string {
  return enabled ? paint(HEALTH[health] ?? 'reset', health) : paint('gray', 'disabled')
}

/** A pool's healthy members among its enabled ones, the disabled ones apart: `2/2 (1 disabled)`. */
export function healthyText (members: ReadonlyArray<{ enabled: boolean, health: string }>): string {
  const enabled = members.filter((m) => m.enabled)
  const disabled = members.length - enabled.length
  const healthy = `${enabled.filter((m) => m.health === 'healthy').length}/${enabled.length}`
  return disabled === 0 ? healthy : `${healthy} (${disabled} disabled)`
}
