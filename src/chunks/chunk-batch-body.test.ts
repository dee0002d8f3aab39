/**
 * A chunk batch's body is read and validated in slices that yield to the event
 * loop (chunk-batch-body.ts, issue #26), and every answer is still the one parsing
 * and validating the whole body at once gave: the 422 bodies below were taken from
 * the service before the change, byte for byte.
 */
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { Agent, request, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, beforeEach, it } from 'node:test'
import { chunk } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, type TestApp } from '../../test/helpers.js'

const rec = (i: number, over: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) => chunk(`c-${i}`, over, meta)
const recs = (n: number, f: (i: number) => Record<string, unknown> = (i) => rec(i)) => Array.from({ length: n }, (_, i) => f(i))
const big = (n: number, dim: number) => recs(n, (i) => rec(i, { embedding: Array.from({ length: dim }, (_, k) => (k % 7) / 8), embedding_dim: dim, embedding_model: 'big' }))
const json = (value: unknown) => JSON.stringify(value)
const nested = (levels: number): unknown => levels === 0 ? 1 : [nested(levels - 1)]

/** The bodies sent, and the answers the service gave them before the change. */
const BODIES: Record<string, string | Buffer> = {
  malformed_comma: '{"chunks":[{"chunk_id":"a",}]}',
  malformed_mid: json({ chunks: big(20, 100) }).replace('0.125,0.25', '0.125,,0.25'),
  unterminated: '{"chunks":[{"chunk_id":"abc',
  bad_at_5: json({ chunks: recs(8, (i) => i === 5 ? rec(i, { embedding_dim: 'three', content: 7 }) : rec(i)) }),
  missing_field: json({ chunks: recs(4, (i) => { const r = rec(i); if (i === 2) delete r.content; return r }) }),
  empty: '',
  nul: json({ chunks: recs(5, (i) => i === 3 ? rec(i, { content: 'a\u0000b' }) : rec(i)) }),
  surrogate: json({ chunks: recs(5, (i) => i === 1 ? rec(i, {}, { source: 'x\ud800y' }) : rec(i)) }),
  deep: json({ chunks: recs(5, (i) => i === 2 ? rec(i, {}, { deep: nested(70) }) : rec(i)) }),
  proto: json({ chunks: recs(3) }).replace('"portal"', '"portal","__proto__":{"x":1}'),
  not_utf8: Buffer.concat([Buffer.from(json({ chunks: recs(3) }).slice(0, 50)), Buffer.from([0xff, 0xfe]), Buffer.from(json({ chunks: recs(3) }).slice(50))]),
  chunks_prims: '{"chunks":[1,"x",null,true]}'
}
const ANSWERS: Record<string, string> = {
  malformed_comma: '{"detail":[{"type":"json_invalid","loc":["body",27],"msg":"JSON decode error","input":{},"ctx":{"error":"Expecting property name enclosed in double quotes"}}]}',
  malformed_mid: '{"detail":[{"type":"json_invalid","loc":["body",14093],"msg":"JSON decode error","input":{},"ctx":{"error":"Expecting value"}}]}',
  unterminated: '{"detail":[{"type":"json_invalid","loc":["body",27],"msg":"JSON decode error","input":{},"ctx":{"error":"Unterminated string starting at"}}]}',
  bad_at_5: '{"detail":[{"type":"string_type","loc":["body","chunks",5,"content"],"msg":"Input should be a valid string","input":7,"url":"https://errors.pydantic.dev/2.5/v/string_type"},{"type":"int_type","loc":["body","chunks",5,"embedding_dim"],"msg":"Input should be a valid integer","input":"three","url":"https://errors.pydantic.dev/2.5/v/int_type"}]}',
  missing_field: '{"detail":[{"type":"missing","loc":["body","chunks",2,"content"],"msg":"Field required","input":{"chunk_id":"c-2","embedding":[0.5,-0.25,1],"embedding_model":"mini","embedding_dim":3,"metadata":{"parent_id":"doc-1","source":"portal","task":"qa","sequence":0,"total_chunks":3,"content_type":"text"}},"url":"https://errors.pydantic.dev/2.5/v/missing"}]}',
  empty: '{"detail":[{"type":"missing","loc":["body"],"msg":"Field required","input":null,"url":"https://errors.pydantic.dev/2.5/v/missing"}]}',
  nul: '{"detail":[{"type":"value_error","loc":["body","chunks",3,"content"],"msg":"Value error, text contains a NUL character or an unpaired surrogate, which cannot be stored","input":"a\\u0000b","ctx":{"error":{}},"url":"https://errors.pydantic.dev/2.5/v/value_error"}]}',
  surrogate: '{"detail":[{"type":"value_error","loc":["body","chunks",1,"metadata","source"],"msg":"Value error, text contains a NUL character or an unpaired surrogate, which cannot be stored","input":"x\\ud800y","ctx":{"error":{}},"url":"https://errors.pydantic.dev/2.5/v/value_error"}]}',
  deep: '{"detail":[{"type":"json_invalid","loc":["body",766],"msg":"JSON decode error","input":{},"ctx":{"error":"JSON is nested more than 64 levels deep"}}]}',
  proto: '{"detail":[{"type":"json_invalid","loc":["body",175],"msg":"JSON decode error","input":{},"ctx":{"error":"Object contains forbidden prototype property"}}]}',
  not_utf8: '{"detail":[{"type":"json_invalid","loc":["body",50],"msg":"JSON decode error","input":{},"ctx":{"error":"the body is not valid UTF-8"}}]}',
  chunks_prims: '{"detail":[{"type":"model_attributes_type","loc":["body","chunks",0],"msg":"Input should be a valid dictionary or object to extract fields from","input":1,"url":"https://errors.pydantic.dev/2.5/v/model_attributes_type"},{"type":"model_attributes_type","loc":["body","chunks",1],"msg":"Input should be a valid dictionary or object to extract fields from","input":"x","url":"https://errors.pydantic.dev/2.5/v/model_attributes_type"},{"type":"model_attributes_type","loc":["body","chunks",2],"msg":"Input should be a valid dictionary or object to extract fields from","input":null,"url":"https://errors.pydantic.dev/2.5/v/model_attributes_type"},{"type":"model_attributes_type","loc":["body","chunks",3],"msg":"Input should be a valid dictionary or object to extract fields from","input":true,"url":"https://errors.pydantic.dev/2.5/v/model_attributes_type"}]}',
}
/** Answers too long to write out: their SHA-256 and length. */
const DIGESTS: Record<string, { body: string, sha256: string, bytes: number }> = {
  too_many: { body: json({ chunks: recs(1001) }), sha256: 'f72ff616885c9e4b1581ab15ec2207d40815cf25f982f3b9814fa25556f3dd2e', bytes: 4350 },
  many_errors: { body: json({ chunks: recs(200, (i) => rec(i, { embedding_dim: 'x', content: 1 }, { sequence: -1 })) }), sha256: '5489b8aee4374979c88e27265cc9dd0c5346ed2e042a21191fb998ca59b570ee', bytes: 18261 }
}

const DIM = 4096
const RECORDS = 200

/** RECORDS records of DIM numbers (about 3 MB of JSON); with `badLast`, the last one's embedding_dim is wrong (a 422). */
function largeBatch (badLast: boolean): string {
  return json({ chunks: recs(RECORDS, (i) => chunk(`large-${i}`, { embedding: Array.from({ length: DIM }, (_, k) => ((i + k) % 9) / 4), embedding_model: 'large', embedding_dim: badLast && i === RECORDS - 1 ? DIM - 1 : DIM }, { sequence: i, total_chunks: RECORDS })) })
}

interface Answer { status: number, text: string }

function send (port: number, agent: Agent, method: string, path: string, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers = body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }
    const req = request({ host: '127.0.0.1', port, method, path, agent, headers }, (res: IncomingMessage) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (piece: string) => { text += piece })
      res.on('end', () => { resolve({ status: res.statusCode ?? 0, text }) })
    })
    req.on('error', reject)
    req.end(body)
  })
}

for (const dialect of dialects) {
  describeOn(dialect, 'a chunk batch read and validated in slices', () => {
    let t: TestApp
    beforeEach(async () => { t = await buildTestApp(dialect, { healthCheckTimer: false }) })
    afterEach(async () => { await t.close() })

    const post = async (payload: string | Buffer) => await t.app.inject({ method: 'POST', url: '/api/chunks/batch', payload, headers: { 'content-type': 'application/json' } })

    it('answers every refused body exactly as before (json_invalid with its position, a bad record, a missing field, an empty body…)', async () => {
      for (const [name, body] of Object.entries(BODIES)) {
        const answer = await post(body)
        assert.equal(answer.statusCode, 422, name)
        assert.equal(answer.body, ANSWERS[name], name)
      }
      for (const [name, { body, sha256, bytes }] of Object.entries(DIGESTS)) {
        const answer = await post(body)
        assert.equal(answer.statusCode, 422, name)
        assert.equal(answer.rawPayload.length, bytes, name)
        assert.equal(createHash('sha256').update(answer.rawPayload).digest('hex'), sha256, name)
      }
    })

    it('stores a batch sent with white space and a +json type as before', async () => {
      const body = ` {\n "chunks" : [ ${json(rec(1))} ,\n${json(rec(2))} ]\n} `
      const answer = await t.app.inject({ method: 'POST', url: '/api/chunks/batch', payload: body, headers: { 'content-type': 'application/vnd.api+json' } })
      assert.equal(answer.statusCode, 200, answer.body)
      assert.deepEqual(answer.json(), { inserted: 2, chunk_ids: ['c-1', 'c-2'], message: '2 chunks stored successfully' })
      assert.equal((await t.request({ method: 'GET', url: '/api/chunks/c-2' })).body.content, 'content of c-2')
    })

    for (const badLast of [true, false]) {
      it(`answers /healthz asked once the whole body of a large batch has come, before the batch's answer (${badLast ? 'a 422: only reading and validating' : 'stored'})`, async () => {
        await t.app.listen({ port: 0, host: '127.0.0.1' })
        const { port } = t.app.server.address() as AddressInfo
        const agent = new Agent({ keepAlive: true, maxSockets: 1 })
        try {
          // A connection already open, so /healthz needs only to be read.
          assert.equal((await send(port, agent, 'GET', '/healthz')).status, 200)
          const finished: string[] = []
          let asked: Promise<Answer> | undefined
          t.app.server.on('request', (req: IncomingMessage, res) => {
            res.on('finish', () => finished.push(String(req.url)))
            // Once the batch's last byte has been read by the server, ask for /healthz.
            if (req.url === '/api/chunks/batch') req.on('end', () => { asked = send(port, agent, 'GET', '/healthz') })
          })
          const stored = await send(port, new Agent(), 'POST', '/api/chunks/batch', largeBatch(badLast))
          assert.equal(stored.status, badLast ? 422 : 200, stored.text.slice(0, 300))
          assert.ok(asked !== undefined, '/healthz was never asked')
          assert.equal((await asked).status, 200)
          assert.deepEqual(finished, ['/healthz', '/api/chunks/batch'], 'the batch was answered before /healthz, asked after its body had come')
        } finally {
          agent.destroy()
        }
      })
    }
  })
}
