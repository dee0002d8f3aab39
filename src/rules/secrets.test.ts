/**
 * The one rule of what is a credential: names read decoded, userinfo and query
 * values cut from the text as written, the URL parser's reading winning where it
 * differs, and the plan's `*** (changed)` marker, by place and name.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { CHANGED_MASK, credentialPieces, isSecretName, maskText, maskUrlsIn, shownWithChanges } from './secrets.js'

describe('what is a credential', () => {
  it('reads a name as written and once percent-decoded', () => {
    for (const name of ['api_key', 'api%5Fkey', 'client_%73ecret', '%74oken', 'X-Amz-Signature', 'sig', 'pwd', 'jwt', 'Bearer']) assert.ok(isSecretName(name), name)
    for (const name of ['region', 'page', 'design', 'to%256Ben']) assert.ok(!isSecretName(name), name)
  })

  it('cuts a URL into what is shown and its credentials, as written', () => {
    assert.deepEqual(credentialPieces('http://user:pw@h/x?api_key=K&region=eu&%74oken=T#f', { asWritten: true }), [
      'http://', 'user:', { place: 'userinfo', name: 'password', value: 'pw' }, '@', 'h/x?',
      'api_key=', { place: 'query', name: 'api_key', value: 'K' }, '&', 'region=eu', '&', '%74oken=', { place: 'query', name: 'token', value: 'T' }, '#', 'f'
    ])
    assert.deepEqual(credentialPieces('HTTP://TOKEN@H/x', { asWritten: true }), ['HTTP://', { place: 'userinfo', name: 'username', value: 'TOKEN' }, '', '@', 'H/x'])
    assert.deepEqual(credentialPieces('/h?token=&a=1'), ['/h?', 'token=', '&', 'a=1'], 'an empty value is no credential')
    assert.equal(maskText('https://h/cb?a=1#access_token=T&state=s'), 'https://h/cb?a=1#access_token=***&state=s', 'a fragment read as pairs too')
  })

  it('lets the URL parser decide where it reads the text otherwise', () => {
    // The parser drops a tab: `tok\ten` is sent as `token`.
    assert.equal(maskText('http://h/?tok\ten=SECRET&a=1'), 'http://h/?token=***&a=1')
    assert.equal(shownWithChanges('http://h/?tok\ten=SECRET&a=1', null), 'http://h/?token=***&a=1')
    assert.equal(maskText('/h?tok\ten=SECRET'), '/h?token=***')
  })

  it('keeps a mask as it is: masking twice changes nothing', () => {
    const shown = 'https://a.example/v1?api_key=*** (changed)&region=eu'
    assert.equal(maskText(shown), shown)
    assert.equal(maskText('https://u:*** (changed)@a.example/'), 'https://u:*** (changed)@a.example/')
    assert.equal(maskText('/h?token=*** (changed)'), '/h?token=*** (changed)')
  })

  it('masks the URLs inside free text', () => {
    // A URL runs to the next space: what may be its last character is masked with it.
    assert.equal(maskUrlsIn('cannot reach http://u:pw@h:1/ (URL includes credentials: http://u:pw@h:1/api?token=T)'),
      'cannot reach http://u:***@h:1/ (URL includes credentials: http://u:***@h:1/api?token=***')
  })
})

describe('a URL as a plan shows it', () => {
  it('marks a credential changed where the other side holds it with another value', () => {
    const from = 'https://a.example/v1?api_key=K1&region=eu'
    assert.equal(shownWithChanges('https://a.example/v1?api_key=K2&region=us', from), `https://a.example/v1?api_key=${CHANGED_MASK}&region=us`)
    assert.equal(shownWithChanges('https://a.example/v1?api_key=K1&region=us', from), 'https://a.example/v1?api_key=***&region=us')
    assert.equal(shownWithChanges(from, null), 'https://a.example/v1?api_key=***&region=eu')
  })

  it('compares by name and place among the parameters of that name, and userinfo by its part', () => {
    assert.equal(shownWithChanges('http://h/?key=A&key=C&sig=S', 'http://h/?key=A&key=B'), 'http://h/?key=***&key=*** (changed)&sig=***')
    assert.equal(shownWithChanges('http://h/?api%5Fkey=B', 'http://h/?api_key=A'), 'http://h/?api%5Fkey=*** (changed)', 'the same name, decoded')
    assert.equal(shownWithChanges('http://u:p2@h/', 'http://u:p1@h/'), 'http://u:*** (changed)@h/')
    assert.equal(shownWithChanges('http://t2@h/', 'http://t1@h/'), 'http://*** (changed)@h/')
    assert.equal(shownWithChanges('/health?token=T2', '/health?token=T1'), '/health?token=*** (changed)')
  })
})
