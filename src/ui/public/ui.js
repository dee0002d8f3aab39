// Why: one place for the page's component glue (Preact through htm, no build
// step) and the small rules every page shares: how a member's health reads at a
// given instant, and how times, durations and numbers are written.
import { h, render } from './vendor/preact.js'
import htm from './vendor/htm.js'

export { render }
export { useCallback, useEffect, useMemo, useRef, useState } from './vendor/hooks.js'
export const html = htm.bind(h)

/**
 * A member's state now: disabled, cooling_down, probing or healthy. A cooldown
 * whose end has passed is probing (the service's own rule), so a countdown that
 * reaches zero turns into probing without asking the service.
 */
export function memberState (member, now) {
  if (!member.enabled) return 'disabled'
  if (member.cooldown_until === null) return member.health === 'probing' ? 'probing' : 'healthy'
  return Date.parse(member.cooldown_until) > now ? 'cooling_down' : 'probing'
}

export const STATE_LABEL = { healthy: 'healthy', probing: 'probing', cooling_down: 'cooling down', disabled: 'disabled' }

/**
 * The cooldowns an operator must tell apart from a failing provider's: the
 * provider's own rate limit (a 429 or its headers saying no requests are left),
 * and our credentials rejected (a 401/402: new auth_headers end it). The kind of
 * a member cooling down now, or null (another reason, or not cooling down).
 */
export function cooldownKind (member, now) {
  if (memberState(member, now) !== 'cooling_down') return null
  return Object.hasOwn(COOLDOWN_LABEL, member.cooldown_reason ?? '') ? member.cooldown_reason : null
}

export const COOLDOWN_LABEL = { rate_limited: 'rate limited', credentials_rejected: 'key rejected' }

/**
 * A pool's response cache as the page shows it, or null when the pool has none
 * (cache_ttl_seconds 0): the hit ratio (null before any request) and the quota
 * saved, i.e. the answers served from the cache, fresh or stale, each of which
 * would otherwise have been an upstream call.
 */
export function cacheSummary (pool) {
  const cache = pool.cache
  if (cache === undefined || cache === null || !(cache.ttl_seconds > 0)) return null
  const saved = cache.hits + cache.stale
  const asked = saved + cache.misses
  return { ratio: asked === 0 ? null : cache.hit_ratio, saved, asked, entries: cache.entries, ttl: cache.ttl_seconds, stale: cache.stale_seconds }
}

/** 1 → "1 call", 7 → "7 calls". */
export const calls = (n) => `${n} call${n === 1 ? '' : 's'}`

/** Seconds left until `iso`, at least 0. */
export const secondsUntil = (iso, now) => Math.max(0, Math.ceil((Date.parse(iso) - now) / 1000))

/** 75 s → "1 min 15 s". */
export function duration (seconds) {
  if (seconds < 60) return `${seconds} s`
  const minutes = Math.floor(seconds / 60)
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`
}

/** "3 min ago" for a past time. */
export function ago (iso, now) {
  if (iso === null || iso === undefined) return 'never'
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000))
  if (seconds < 5) return 'just now'
  return `${duration(seconds)} ago`
}

export const clock = (iso) => new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' })
export const dateTime = (iso) => new Date(iso).toLocaleString([], { dateStyle: 'short', timeStyle: 'medium' })
export const percent = (share) => `${Math.round(share * 1000) / 10} %`

/** A member's quota use as a share (0–1), or null without a quota. */
export const quotaShare = (quota) => quota === null || quota.limit === 0 ? null : quota.used / quota.limit
