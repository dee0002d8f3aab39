#!/usr/bin/env node
// The `sourcepool` command: the TypeScript CLI (src/cli/main.ts) run through tsx, as `npm start` runs the service.
import { register } from 'tsx/esm/api'

register()
const { run } = await import('../src/cli/main.ts')
await run()
