/**
 * The credential rule on its own (rules/credential-refusal.ts): when a 401/402 on
 * our credentials is our key rejected and when it refuses one resource alone.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { healthCheckPathOf, judgeRefusal, refusalSeconds, refusedPathOf, resourceOf } from './credential-refusal.js'

const nothing = { succeededBefore: false, healthCheckPath: null }

describe('the credential rule', () => {
  it('takes a 401/402 on a path for a refusal of that path alone', () => {
    assert.equal(judgeRefusal({ ...nothing, path: '/premium/report?year=2026' }), 'resource_refused')
  })

  it('takes it for our key rejected only on evidence the client cannot steer: the target served 2xx before, the health check target', () => {
    assert.equal(judgeRefusal({ ...nothing, path: '/premium', succeededBefore: true }), 'credentials_rejected')
    assert.equal(judgeRefusal({ ...nothing, path: '/status?deep=1', healthCheckPath: '/status?deep=1' }), 'credentials_rejected')
    assert.equal(judgeRefusal({ ...nothing, path: 'status', healthCheckPath: '/status' }), 'credentials_rejected')
    assert.equal(judgeRefusal({ ...nothing, path: '/status?api_key=mine', healthCheckPath: '/status' }), 'resource_refused', 'a query of the client\'s own is not the check')
    assert.equal(judgeRefusal({ ...nothing, path: '/status/more', healthCheckPath: '/status' }), 'resource_refused', 'the check target exactly, not its resource')
  })

  it('without a path: a plain failure, the health check path known or not', () => {
    assert.equal(judgeRefusal({ ...nothing, path: null }), 'unscoped')
    assert.equal(judgeRefusal({ ...nothing, path: null, healthCheckPath: '/status' }), 'unscoped')
  })

  it('remembers a 401/402 refusal no longer than a rejected key would be out, a 403 for forbidden_ttl_seconds', () => {
    const pool = { forbidden_ttl_seconds: 3600, max_cooldown_seconds: 300 }
    assert.deepEqual([refusalSeconds(401, pool), refusalSeconds(402, pool), refusalSeconds(403, pool)], [300, 300, 3600])
    assert.equal(refusalSeconds(401, { forbidden_ttl_seconds: 60, max_cooldown_seconds: 300 }), 60)
  })

  it('reads the resource of a path (a 403\'s key), the exact path (a 401/402\'s) and the path of a stored health check', () => {
    assert.deepEqual([resourceOf('/despesas/2024?x=1'), resourceOf('/?q'), resourceOf('/a')], ['/despesas', '/', '/a'])
    assert.deepEqual([refusedPathOf('/v1/paid?x=1'), refusedPathOf('/v1/paid#f'), refusedPathOf('/?q'), refusedPathOf('v1')], ['/v1/paid', '/v1/paid', '/', '/v1'])
    assert.deepEqual([healthCheckPathOf('{"path":"/health","interval_s":5}'), healthCheckPathOf(null), healthCheckPathOf('not json')], ['/health', null, null])
  })
})
