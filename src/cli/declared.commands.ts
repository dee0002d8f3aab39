/**
 * The CLI's pools-as-code commands: plan, apply and export a declared state file,
 * and the plan-then-apply step that `apply` and `demo --pool` share (exactly the
 * changes planned are applied, or none: the service answers 409 if it moved meanwhile).
 */
import { createInterface } from 'node:readline/promises'
import type { Command } from 'commander'
import type { paths } from '../client/index.js'
import { DeclaredFileError, formatProblem, readDeclaredFile } from '../declared/declared-file.js'
import type { PlanValue } from '../declared/declared.schemas.js'
import { planText, print } from './output.js'
import { CliError, type Ask } from './service.js'

/** A declared state as the service takes it. */
export type DeclaredBody = paths['/api/config/plan']['post']['requestBody']['content']['application/json']

/** The checked state of a file, `--prune` added; problems one line each. */
async function stateOf (file: string, prune: boolean | undefined): Promise<DeclaredBody> {
  try {
    const { state } = await readDeclaredFile(file, process.env)
    return (prune === true ? { ...state, prune: true } : state) as DeclaredBody
  } catch (error) {
    if (error instanceof DeclaredFileError) throw new CliError(error.problems.map(formatProblem).join('\n'))
    throw error
  }
}

/** Asks a yes/no question on the terminal. */
async function confirm (question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr })
  try {
    return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim())
  } finally {
    rl.close()
  }
}

/**
 * Plans `state`; when it changes anything, `approve` sees the plan first (it throws to stop)
 * and exactly those changes are applied. Answers the plan applied, or the empty plan.
 */
export async function planAndApply (ask: Ask, state: DeclaredBody, approve: (plan: PlanValue) => Promise<void> = async () => {}): Promise<PlanValue> {
  const plan = await ask(async (api) => await api.POST('/api/config/plan', { body: state })) as PlanValue
  if (plan.changes.length === 0) return plan
  await approve(plan)
  return await ask(async (api) => await api.POST('/api/config/apply', { params: { query: { expect: plan.fingerprint } }, body: state })) as PlanValue
}

/** Adds plan, apply and export to `cli`. */
export function declaredCommands (cli: Command, ask: Ask, globals: () => { json?: boolean }): void {
  cli.command('plan').argument('<file>', 'a declared state (YAML or JSON)')
    .description('show what applying FILE would change; exit 0 without changes, 2 with')
    .option('--prune', 'also delete what FILE does not declare')
    .action(async (file: string, options: { prune?: boolean }) => {
      const state = await stateOf(file, options.prune)
      const plan = await ask(async (api) => await api.POST('/api/config/plan', { body: state })) as PlanValue
      print(globals(), plan, () => planText(plan))
      if (plan.changes.length > 0) process.exitCode = 2
    })

  cli.command('apply').argument('<file>', 'a declared state (YAML or JSON)')
    .description('make the service what FILE declares, in one transaction')
    .option('--prune', 'also delete what FILE does not declare')
    .option('-y, --yes', 'apply without asking')
    .action(async (file: string, options: { prune?: boolean, yes?: boolean }) => {
      const state = await stateOf(file, options.prune)
      const applied = await planAndApply(ask, state, async (plan) => {
        if (options.yes === true) return
        if (process.stdin.isTTY !== true) throw new CliError('refusing to apply without --yes: nobody is at a terminal to confirm')
        process.stderr.write(`${planText(plan)}\n`)
        if (!await confirm(`Apply ${plan.changes.length} change${plan.changes.length === 1 ? '' : 's'}?`)) throw new CliError('not applied')
      })
      print(globals(), applied, () => planText(applied))
    })

  cli.command('export').description('print the service\'s state as a file that applies back to no change (credentials as placeholders to fill from the environment)')
    .action(async () => {
      if (globals().json === true) {
        const state = await ask(async (api) => await api.GET('/api/config/export'))
        print(globals(), state, () => '')
        return
      }
      const text = await ask(async (api) => await api.GET('/api/config/export', { params: { query: { format: 'yaml' } }, parseAs: 'text' }))
      process.stdout.write(text as unknown as string)
    })
}
