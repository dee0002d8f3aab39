/**
 * `npm run client:generate`: the typed client's types (src/client/schema.d.ts),
 * generated with openapi-typescript from the OpenAPI document the service serves
 * (built in memory, on an in-memory database, with no tokens configured). A test
 * regenerates them and fails when the committed file differs.
 */
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import openapiTS, { astToString } from 'openapi-typescript'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'

export const SCHEMA_FILE = fileURLToPath(new URL('../src/client/schema.d.ts', import.meta.url))

const HEADER = `/**
 * The service's API as TypeScript types, generated from its OpenAPI document by
 * openapi-typescript (npm run client:generate). Do not edit: a test fails when this
 * file differs from what the service documents.
 */
`

/** The OpenAPI document the service serves. */
export async function openApiDocument (): Promise<Record<string, unknown>> {
  const app = await buildApp(loadConfig({ DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'silent' }), { logger: false, healthCheckTimer: false })
  try {
    await app.ready()
    return structuredClone(app.swagger()) as Record<string, unknown>
  } finally {
    await app.close()
  }
}

/** The text of src/client/schema.d.ts. */
export async function clientTypes (): Promise<string> {
  const ast = await openapiTS(await openApiDocument() as never)
  return `${HEADER}${astToString(ast)}`
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(SCHEMA_FILE, await clientTypes())
  process.stdout.write(`wrote ${SCHEMA_FILE}\n`)
}
