/**
 * The credential rule on its own (rules/credential-refusal.ts): when a 401/402 on
 * our credentials is our key rejected and when it refuses one resource alone.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { healthCheckPathOf, judgeRefusal, refusalSeconds, resourceOf } from './credential-refusal.js'

const nothing = { refusedResources: [], succeededBefore: false, healthCheckPath: null }

describe('the credential rule', () => {
  it('takes a first 401/402 on a resource for a refusal of that resource alone', () => {
    assert.equal(judgeRefusal({ ...nothing, path: '/premium/report?year=2026' }), 'resource_refused')
    assert.equal(judgeRefusal({ ...nothing, path: '/premium/other', refusedResources: ['/premium'] }), 'resource_refused', 'the same resource again')
  })

  it('takes it for our key rejected on evidence across resources: another resource refused, the target served before, the health check path', () => {
    assert.equal(judgeRefusal({ ...nothing, path: '/quotes', refusedResources: ['/premium'] }), 'credentials_rejected')
    assert.equal(judgeRefusal({ ...nothing, path: '/premium', succeededBefore: true }), 'credentials_rejected')
    assert.equal(judgeRefusal({ ...nothing, path: '/status?x=1', healthCheckPath: '/status?deep=1' }), 'credentials_rejected')
    assert.equal(judgeRefusal({ ...nothing, path: '/status/more', healthCheckPath: '/status' }), 'resource_refused', 'the check path exactly, not its resource')
  })

  it('without a path: any credential refusal in force is evidence; else a plain failure', () => {
    assert.equal(judgeRefusal({ ...nothing, path: null }), 'unscoped')
    assert.equal(judgeRefusal({ ...nothing, path: null, refusedResources: ['/premium'] }), 'credentials_rejected')
  })

  it('remembers a 401/402 refusal no longer than a rejected key would be out, a 403 for forbidden_ttl_seconds', () => {
    const pool = { forbidden_ttl_seconds: 3600, max_cooldown_seconds: 300 }
    assert.deepEqual([refusalSeconds(401, pool), refusalSeconds(402, pool), refusalSeconds(403, pool)], [300, 300, 3600])
    assert.equal(refusalSeconds(401, { forbidden_ttl_seconds: 60, max_cooldown_seconds: 300 }), 60)
  })

  it('reads the resource of a path and the path of a stored health check', () => {
    assert.deepEqual([resourceOf('/despesas/2024?x=1'), resourceOf('/?q'), resourceOf('/a')], ['/despesas', '/', '/a'])
    assert.deepEqual([healthCheckPathOf('{"path":"/health","interval_s":5}'), healthCheckPathOf(null), healthCheckPathOf('not json')], ['/health', null, null])
  })
})
