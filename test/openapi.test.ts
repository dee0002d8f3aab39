/**
 * The OpenAPI document is good enough to generate a client from: every operation
 * has an operationId, a summary, a tag and its error answers; a body is marked
 * required exactly where the service refuses a request without one; Redocly's
 * recommended rules find no error; and the committed client types are exactly
 * what the document generates today.
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, it } from 'node:test'
import { clientTypes, openApiDocument, SCHEMA_FILE } from '../scripts/generate-client.js'
import { buildTestApp, sqlite } from './helpers.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

type Operation = { operationId?: string, summary?: string, tags?: string[], requestBody?: { required?: boolean }, responses: Record<string, unknown> }

describe('the OpenAPI document', () => {
  it('names, summarises, tags and documents the errors of every operation', async () => {
    const doc = await openApiDocument() as { paths: Record<string, Record<string, Operation>> }
    const ids = new Set<string>()
    let count = 0
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(operations)) {
        count++
        const where = `${method.toUpperCase()} ${path}`
        assert.ok(op.operationId !== undefined && /^[a-z][A-Za-z0-9]*$/.test(op.operationId), `${where}: operationId ${op.operationId}`)
        assert.ok(!ids.has(op.operationId), `${where}: operationId ${op.operationId} twice`)
        ids.add(op.operationId)
        assert.ok((op.summary ?? '') !== '', `${where}: summary`)
        assert.ok((op.tags ?? []).length > 0, `${where}: tags`)
        assert.ok(op.responses['500'] !== undefined, `${where}: 500`)
        if (path !== '/healthz') for (const code of ['401', '403', '429']) assert.ok(op.responses[code] !== undefined, `${where}: ${code}`)
      }
    }
    assert.ok(count >= 45, `${count} operations`)
    const rotate = doc.paths['/api/pools/{pool_id}/rotate']?.post as Operation
    for (const code of ['404', '413', '415', '422']) assert.ok(rotate.responses[code] !== undefined, `rotate: ${code}`)
    const proxy = doc.paths['/api/pools/{pool_id}/proxy/{path}'] as Record<string, Operation>
    assert.deepEqual(Object.keys(proxy).sort(), ['delete', 'get', 'head', 'options', 'patch', 'post', 'put', 'trace'])
    for (const code of ['2XX', '405', '502', '503']) assert.ok(proxy.get?.responses[code] !== undefined, `proxy: ${code}`)
  })

  it('marks a body required exactly where the service refuses a request without one', async () => {
    const doc = await openApiDocument() as { paths: Record<string, Record<string, Operation>> }
    const t = await buildTestApp(sqlite)
    try {
      const optional: string[] = []
      for (const [path, operations] of Object.entries(doc.paths)) {
        for (const [method, op] of Object.entries(operations)) {
          if (op.requestBody === undefined) continue
          const where = `${method.toUpperCase()} ${path}`
          const res = await t.request({ method: method.toUpperCase() as 'POST', url: path.replace(/\{[a-z_]+\}/g, '1') })
          const bodyMissing = res.status === 422 && (res.body.detail as Array<{ loc: unknown[] }>).some((d) => d.loc.length === 1 && d.loc[0] === 'body')
          assert.equal(bodyMissing, op.requestBody.required !== false, `${where}: requestBody.required ${String(op.requestBody.required)}, without a body ${res.status} ${JSON.stringify(res.body)}`)
          if (op.requestBody.required === false) optional.push(where)
        }
      }
      // Every field of these is optional; failover's failed_provider_id is not.
      for (const where of ['POST /api/pools/{pool_id}/rotate', 'PUT /api/pools/{pool_id}', 'PUT /api/pools/{pool_id}/members/{provider_id}', 'PUT /api/providers/{provider_id}']) {
        assert.ok(optional.includes(where), `${where} is optional`)
      }
      assert.ok(!optional.includes('POST /api/pools/{pool_id}/failover'))
    } finally {
      await t.close()
    }
  })

  it('passes Redocly\'s recommended rules without an error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sourcepool-openapi-'))
    try {
      const file = join(dir, 'openapi.json')
      writeFileSync(file, JSON.stringify(await openApiDocument()))
      const lint = spawnSync(join(ROOT, 'node_modules/.bin/redocly'), ['lint', file, '--format=summary'], { encoding: 'utf8', cwd: dir })
      assert.equal(lint.status, 0, `${lint.stdout}\n${lint.stderr}`)
      assert.match(`${lint.stdout}${lint.stderr}`, /Your API description is valid/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('generates the committed client types (run npm run client:generate after an API change)', async () => {
    assert.ok(readFileSync(SCHEMA_FILE, 'utf8') === await clientTypes(), 'src/client/schema.d.ts is out of date: run npm run client:generate')
  })
})
