/**
 * Export's placeholders, on stored rows (no database needed): one for every
 * credential — headers, userinfo, query values (of base, WebSocket and check URLs) under names read decoded — the rest
 * written as stored, and variables that give back every value once filled in.
 */
/* eslint-disable no-template-curly-in-string -- `${NAME}` placeholders are what these tests are about */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { ProviderRow } from '../providers/provider.repository.js'
import { exportedState } from './declared.export.js'

const row = (id: number, name: string, fields: Partial<ProviderRow>): ProviderRow => ({
  id,
  name,
  category: null,
  base_url: null,
  description: null,
  rate_limit_requests: null,
  rate_limit_per: null,
  timeout_ms: null,
  auth_headers: null,
  health_check: null,
  ...fields
}) as ProviderRow

const check = (path: string) => JSON.stringify({ path, interval_s: 10, timeout_ms: 2000, expect_status: ['200-399'], healthy_threshold: 2, unhealthy_threshold: 3 })

describe('export', () => {
  it('writes a placeholder for every credential and the rest as stored', () => {
    const state = exportedState({
      providers: [
        row(1, 'portal-a', {
          base_url: 'HTTP://user:pw@A.example/v1?api%5Fkey=K&client_%73ecret=S&region=eu',
          auth_headers: JSON.stringify({ 'x-api-key': 'H' }),
          health_check: check('/h?token=T&deep=1')
        }),
        row(2, 'lone', { base_url: 'https://TOKEN@b.example/', ws_url: 'wss://b.example/ws' })
      ],
      pools: [],
      members: []
    })
    const [a, lone] = state.providers ?? []
    assert.equal(a?.base_url, 'HTTP://user:${SOURCEPOOL_PORTAL_A_PASSWORD}@A.example/v1?api%5Fkey=${SOURCEPOOL_PORTAL_A_API_KEY}&client_%73ecret=${SOURCEPOOL_PORTAL_A_CLIENT_SECRET}&region=eu')
    assert.equal(a?.health_check?.path, '/h?token=${SOURCEPOOL_PORTAL_A_TOKEN}&deep=1')
    assert.deepEqual(a?.auth_headers, { 'x-api-key': '${SOURCEPOOL_PORTAL_A_X_API_KEY}' })
    assert.equal(lone?.base_url, 'https://${SOURCEPOOL_LONE_USERNAME}@b.example/')
    assert.equal(lone?.ws_url, 'wss://b.example/ws', 'a WebSocket URL without credentials, as stored')
    assert.equal('ws_url' in (a ?? {}), false, 'no WebSocket URL, none written')
  })

  it('shares a variable between credentials of one name and value, and numbers another value under a name taken', () => {
    const [p] = exportedState({
      providers: [row(1, 'p', {
        base_url: 'https://a.example/?api_key=K&token=T1',
        ws_url: 'wss://a.example/ws?api_key=K&token=T3',
        auth_headers: JSON.stringify({ 'api-key': 'K', 'x-token': 'X' }),
        health_check: check('/h?token=T2&api_key=K')
      })],
      pools: [],
      members: []
    }).providers ?? []
    assert.deepEqual(p?.auth_headers, { 'api-key': '${SOURCEPOOL_P_API_KEY}', 'x-token': '${SOURCEPOOL_P_X_TOKEN}' })
    assert.equal(p?.base_url, 'https://a.example/?api_key=${SOURCEPOOL_P_API_KEY}&token=${SOURCEPOOL_P_TOKEN}')
    assert.equal(p?.ws_url, 'wss://a.example/ws?api_key=${SOURCEPOOL_P_API_KEY}&token=${SOURCEPOOL_P_TOKEN_2}')
    assert.equal(p?.health_check?.path, '/h?token=${SOURCEPOOL_P_TOKEN_3}&api_key=${SOURCEPOOL_P_API_KEY}')
  })
})
