/**
 * The pure forwarding rules (forward.ts) on their own: request targets, the
 * upstream URL, headers, refused methods, bodiless answers and how errors count.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  assertForwardableMethod, classifyError, downstreamHeaders, hasNoBody, MethodNotAllowedError, proxiedPath, upstreamHeaders, upstreamRequestIdOf
} from './forward.js'
import { assertSafePath, baseUrlAuthorization, parseBase, UnsafePathError, upstreamTarget, upstreamUrl } from '../rules/upstream-url.js'

describe('forwarding rules', () => {
  it('takes the path and query of an origin-form or absolute-form target', () => {
    assert.equal(proxiedPath('/api/pools/1/proxy/a/b?x=1'), '/a/b?x=1')
    assert.equal(proxiedPath('http://host:8000/api/pools/1/proxy/a/b?x=1'), '/a/b?x=1')
    assert.equal(proxiedPath('HTTPS://host/api/pools/1/proxy'), '/')
    assert.equal(proxiedPath('/api/pools/1/proxy/?q'), '/?q')
  })

  it("puts the base URL's query first, then the client's, and never its userinfo", () => {
    assert.equal(upstreamUrl('https://api.example/v1?key=K', '/a?x=1').toString(), 'https://api.example/v1/a?key=K&x=1')
    assert.equal(upstreamUrl('https://api.example/v1/?key=K#frag', '/a').toString(), 'https://api.example/v1/a?key=K')
    assert.equal(upstreamUrl('https://u:p@api.example/', '/a').toString(), 'https://api.example/a')
    assert.equal(baseUrlAuthorization('https://u%3Ax:p%40ss@api.example/'), `Basic ${Buffer.from('u:x:p@ss').toString('base64')}`)
    assert.equal(baseUrlAuthorization('https://api.example/'), undefined)
  })

  it('builds the upstream target by strings, on the base origin, encoding what a request line may not carry', () => {
    const base = parseBase('http://u:p@api.example:8080/v1/?key=K')
    assert.deepEqual(base, { origin: 'http://api.example:8080', pathname: '/v1', query: 'key=K' })
    assert.deepEqual(upstreamTarget(base, '/a/b?x=1'), { origin: 'http://api.example:8080', path: '/v1/a/b?key=K&x=1' })
    assert.deepEqual(upstreamTarget(parseBase('http://api.example'), '//evil.example/x'), { origin: 'http://api.example', path: '//evil.example/x' })
    assert.deepEqual(upstreamTarget(parseBase('http://api.example'), '/'), { origin: 'http://api.example', path: '/' })
    assert.deepEqual(upstreamTarget(parseBase('http://api.example/v1'), '/caf\u00e9?q=\u00e9'), { origin: 'http://api.example', path: '/v1/caf%C3%A9?q=%C3%A9' })
    assert.equal(upstreamUrl('http://api.example', '//evil.example/x').toString(), 'http://api.example//evil.example/x')
  })

  it('sends every target byte for byte as the URL parser would, the characters it encodes included', () => {
    const base = parseBase('http://api.example/v1?k=1')
    for (const path of ['/a/"<>{}`|^[]\'~?q="<>\'{}`', '/plain/a-b_c.d~e!$&()*+,;=:@?x=1&y=%20', '/%7e?q=%ZZ']) {
      const viaParser = new URL(`http://api.example/v1${path.replace('?', '?k=1&')}`)
      assert.equal(upstreamTarget(base, path).path, `${viaParser.pathname}${viaParser.search}`, path)
    }
  })

  it('refuses spaces and control characters in the path, which a parser could drop to join dot segments', () => {
    for (const path of ['/a/.\t./b', '/a b', '/a\u007f']) assert.throws(() => { assertSafePath(path) }, UnsafePathError, JSON.stringify(path))
    assertSafePath('/a/b.json?q=a b')
  })

  it('never sends Expect, Host, x-sourcepool-key, the client Authorization or (without forward_client_auth) its provider credentials and cookies', () => {
    const incoming = { expect: '100-continue', host: 'h', authorization: 'Bearer t', 'x-provider-authorization': 'Basic p', 'x-sourcepool-key': 'user-1', cookie: 'c=1', accept: 'a' }
    const base = { peer: '10.0.0.2', protocol: 'https', requestId: 'r-1' }
    assert.deepEqual(upstreamHeaders(incoming, { ...base, forwardClientAuth: false }), { accept: 'a', 'x-forwarded-for': '10.0.0.2', 'x-forwarded-proto': 'https', 'x-request-id': 'r-1' })
    assert.deepEqual(upstreamHeaders(incoming, { ...base, forwardClientAuth: true, providerHeaders: { Expect: '100-continue', 'X-Key': 'k' } }), {
      accept: 'a', cookie: 'c=1', authorization: 'Basic p', 'x-forwarded-for': '10.0.0.2', 'x-forwarded-proto': 'https', 'x-key': 'k', 'x-request-id': 'r-1'
    })
  })

  it("sends this request's id upstream in place of the client's, and brings the provider's back as x-upstream-request-id", () => {
    const up = upstreamHeaders({ 'x-request-id': 'has spaces, and more' }, { peer: 'p', protocol: 'http', forwardClientAuth: false, providerHeaders: { 'X-Request-Id': 'stored' }, requestId: 'ours' })
    assert.equal(up['x-request-id'], 'ours')
    assert.deepEqual(downstreamHeaders({ 'x-request-id': 'theirs', 'x-upstream-request-id': 'their upstream', etag: '"e"' }), { 'x-upstream-request-id': 'theirs', etag: '"e"' })
    assert.deepEqual(downstreamHeaders({ 'x-upstream-request-id': 'their upstream' }), {})
    assert.equal(upstreamRequestIdOf({ 'x-request-id': ['a', 'b'] }), 'a, b')
    assert.equal(upstreamRequestIdOf({ 'x-request-id': 'x'.repeat(1000) }), `${'x'.repeat(256)}…`)
    assert.equal(upstreamRequestIdOf({}), undefined)
  })

  it('refuses TRACE and CONNECT, in any case', () => {
    for (const method of ['TRACE', 'CONNECT', 'trace']) assert.throws(() => { assertForwardableMethod(method) }, MethodNotAllowedError)
    for (const method of ['GET', 'POST', 'PROPFIND']) assertForwardableMethod(method)
  })

  it('knows the answers that have no body', () => {
    assert.deepEqual([hasNoBody('HEAD', 200), hasNoBody('GET', 204), hasNoBody('GET', 304), hasNoBody('GET', 200), hasNoBody('POST', 201)], [true, true, true, false, false])
  })

  it("counts the upstream client's refusals and programming errors as ours, network errors as the provider's", () => {
    for (const code of ['UND_ERR_INVALID_ARG', 'UND_ERR_NOT_SUPPORTED', 'UND_ERR_CLOSED', 'ERR_INVALID_URL']) {
      assert.equal(classifyError(Object.assign(new Error('x'), { code }), false).kind, 'ours', code)
    }
    assert.equal(classifyError(new TypeError('x'), false).kind, 'ours')
    assert.deepEqual(classifyError(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }), false), { kind: 'failure', reason: 'connect_error' })
    assert.deepEqual(classifyError(Object.assign(new Error('x'), { code: 'UND_ERR_SOCKET' }), false), { kind: 'failure', reason: 'connect_error' })
    assert.deepEqual(classifyError(Object.assign(new Error('x'), { code: 'UND_ERR_ABORTED' }), true), { kind: 'failure', reason: 'timeout' })
  })
})
