/**
 * What the masking rule shows of a text: credentials in URLs of any scheme,
 * whether or not the URL parses, and secret-looking query values in anything that
 * looks like a path or a query. The audit trail and the 422 `input` use the same
 * rule (maskText), so both are checked here.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { maskSecrets } from '../audit/audit.js'
import { maskRequestTarget, maskText, maskUrl } from './redact.js'

describe('maskText', () => {
  it('masks the password of a URL that does not parse, or is not http(s)', () => {
    const cases: Array<[string, string]> = [
      ['https://user:s3cr3tpass@exa mple.com/', 'https://user:***@exa mple.com/'],
      ['https://user:s3cret@host:99999/', 'https://user:***@host:99999/'],
      ['http:/user:s3cret@host/', 'http://user:***@host/'],
      [' https://user:s3cret@host/', 'https://user:***@host/'],
      ['ftp://user:s3cret@host/', 'ftp://user:***@host/'],
      ['redis://user:s3cret@cache:99999/0', 'redis://user:***@cache:99999/0'],
      ['https://user:p@ss@exa mple.com/', 'https://user:***@exa mple.com/'],
      ['https://t0k3n@exa mple.com/', 'https://***@exa mple.com/'],
      ['//user:s3cret@host/x', '//user:***@host/x']
    ]
    for (const [text, shown] of cases) assert.equal(maskText(text), shown, text)
  })

  it('masks secret-looking query values of a URL that does not parse, and of text that looks like a path', () => {
    assert.equal(maskText('https://exa mple.com/?api_key=k1&region=eu#top'), 'https://exa mple.com/?api_key=***&region=eu#top')
    assert.equal(maskText('h?token=SECRET'), 'h?token=***')
    assert.equal(maskText('h?page=2&sig=abc'), 'h?page=2&sig=***')
    assert.equal(maskText('/h?api_key=k&deep=1'), '/h?api_key=***&deep=1')
    assert.equal(maskUrl('https://exa mple.com/?a=1&b=2', { everyQueryValue: true }), 'https://exa mple.com/?a=***&b=***')
  })

  it('leaves text without credentials exactly as it was', () => {
    for (const text of ['hello', 'Why? Because.', 'https://api.example.com/v1?region=eu', 'note: mail bob@example.com', '/h', 'a=1&b=2', 'bob@example.com', '']) {
      assert.equal(maskText(text), text, text)
    }
    assert.equal(maskRequestTarget('/h?q=1'), '/h?q=1')
  })

  it('is the audit trail\'s rule too', () => {
    assert.deepEqual(maskSecrets({ base_url: 'ftp://user:s3cret@host/', path: 'h?token=SECRET', bad: 'https://user:s3cret@host:99999/' }),
      { base_url: 'ftp://user:***@host/', path: 'h?token=***', bad: 'https://user:***@host:99999/' })
  })
})
