/**
 * The dashboard's files, read once at start-up into memory: the page's own files
 * (src/ui/public) and the few browser libraries it uses, taken from their npm
 * packages (no CDN, no bundler, no build step). Each is served with its type and
 * a content hash as ETag, gzipped once (the page's files come to about 75 KB so). The libraries' bare imports (`from "preact"`) are
 * rewritten to the served file, so the browser needs no import map (which CSP
 * would have to allow as an inline script).
 */
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { gzipSync } from 'node:zlib'
import { dirname, extname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export interface Asset {
  readonly body: Buffer
  /** The body gzipped once at start-up, when that makes it smaller, with its own ETag. */
  readonly gzip: { readonly body: Buffer, readonly etag: string } | null
  readonly type: string
  readonly etag: string
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml'
}

/** The folder of an installed package's main file. */
const packageDir = (name: string) => dirname(fileURLToPath(import.meta.resolve(name)))

/** A vendored file, its source map comment dropped and its bare imports replaced; a missing import fails start-up, so a library upgrade that moves it is noticed. */
function vendor (file: string, imports: Record<string, string> = {}): Buffer {
  // Without their source maps, which are not served.
  let text = readFileSync(file, 'utf8').replace(/^\/\/# sourceMappingURL=.*$/m, '')
  for (const [from, to] of Object.entries(imports)) {
    const pattern = new RegExp(`from\\s*["']${from.replace('/', '\\/')}["']`, 'g')
    if (!pattern.test(text)) throw new Error(`${file} no longer imports ${from}`)
    text = text.replace(pattern, `from"${to}"`)
  }
  return Buffer.from(text)
}

function asset (name: string, body: Buffer): Asset {
  const type = TYPES[extname(name)]
  if (type === undefined) throw new Error(`no content type for ${name}`)
  const gzip = gzipSync(body, { level: 9 })
  const hash = createHash('sha256').update(body).digest('base64url').slice(0, 27)
  return {
    body,
    // A strong ETag names one representation: the gzipped one gets its own.
    gzip: gzip.length < body.length * 0.9 ? { body: gzip, etag: `"${hash}-gzip"` } : null,
    type,
    etag: `"${hash}"`
  }
}

/** Every asset by its path under /ui/assets/ (index.html under its own name). */
export function loadAssets (): Map<string, Asset> {
  const assets = new Map<string, Asset>()
  // From the repository's src/ui/public both when run from source and when compiled to dist/ui/.
  const own = fileURLToPath(new URL('../../src/ui/public/', import.meta.url))
  for (const name of readdirSync(own)) {
    if (TYPES[extname(name)] !== undefined) assets.set(name, asset(name, readFileSync(join(own, name))))
  }
  const preact = packageDir('preact')
  const uplot = packageDir('uplot')
  const vendored: Record<string, Buffer> = {
    'vendor/preact.js': vendor(join(preact, 'preact.module.js')),
    'vendor/hooks.js': vendor(join(packageDir('preact/hooks'), 'hooks.module.js'), { preact: './preact.js' }),
    'vendor/htm.js': vendor(join(packageDir('htm'), 'htm.module.js')),
    'vendor/uplot.js': vendor(join(uplot, 'uPlot.esm.js')),
    'vendor/uplot.css': vendor(join(uplot, 'uPlot.min.css')),
    'vendor/eventsource-parser.js': vendor(join(packageDir('eventsource-parser'), 'index.js'))
  }
  for (const [name, body] of Object.entries(vendored)) assets.set(name, asset(name, body))
  return assets
}
