/**
 * `/ui`: the dashboard, served by the service itself from memory (`/` redirects
 * to it). The page and its files are open (they hold no data); everything they show comes from the
 * API with the token the page asks for. A strict Content-Security-Policy allows
 * only this origin's scripts, styles and connections.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { loadAssets, type Asset } from './assets.js'

const CSP = [
  "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "connect-src 'self'",
  "font-src 'self'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'"
].join('; ')

/** Whether an If-None-Match header (a list, tags possibly weak) names `etag`. */
function matches (header: string | undefined, etag: string): boolean {
  if (header === undefined) return false
  return header.split(',').some((tag) => { const t = tag.trim(); return t === '*' || t.replace(/^W\//, '') === etag })
}

function send (request: FastifyRequest, reply: FastifyReply, asset: Asset): FastifyReply {
  const accepts = request.headers['accept-encoding']
  const gzip = asset.gzip !== null && typeof accepts === 'string' && /\bgzip\b/.test(accepts) ? asset.gzip : null
  const etag = gzip?.etag ?? asset.etag
  reply.header('content-security-policy', CSP)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    // Revalidated each time: a restart with a new version is picked up at once, an unchanged file costs a 304.
    .header('cache-control', 'no-cache')
    .header('etag', etag)
    .header('vary', 'accept-encoding')
  if (matches(request.headers['if-none-match'], etag)) return reply.code(304).send()
  reply.type(asset.type)
  if (gzip !== null) return reply.header('content-encoding', 'gzip').send(gzip.body)
  return reply.send(asset.body)
}

export const uiRoutes: FastifyPluginAsync = async (app) => {
  const assets = loadAssets()
  const page = assets.get('index.html')
  if (page === undefined) throw new Error('the dashboard page is missing')
  const schema = { hide: true }
  // The address a person types: the dashboard. 302, not 301: a browser keeps a permanent
  // redirect for good, and / may answer something else one day (303 and 307 differ from 302
  // only for methods other than GET and HEAD, which this route does not take).
  app.get('/', { schema }, async (_request, reply) => reply.redirect('/ui', 302))
  app.get('/ui', { schema }, async (request, reply) => send(request, reply, page))
  app.get('/ui/', { schema }, async (_request, reply) => reply.redirect('/ui', 301))
  app.get('/ui/assets/*', { schema }, async (request, reply) => {
    const asset = assets.get((request.params as { '*': string })['*'])
    if (asset === undefined) return reply.code(404).send({ detail: 'Not Found' })
    return send(request, reply, asset)
  })
}
