/**
 * Headless Chromium for the dashboard's tests, driven by playwright-core with
 * Debian's `chromium` package (nothing downloads a browser). Without it the
 * browser tests skip and say why; on CI `.ci/run` installs it, and CI=true makes
 * a missing browser a failure instead of a skip.
 */
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium, type Browser, type Page } from 'playwright-core'

const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter((p): p is string => p !== undefined && p !== '')

/** Chromium's path, or undefined. */
export const chromiumPath = CANDIDATES.find((path) => existsSync(path))

/** Why the browser tests skip here, or false when they run. */
export function browserSkip (): string | false {
  if (chromiumPath !== undefined) return false
  if (process.env.CI === 'true') throw new Error(`no Chromium at ${CANDIDATES.join(', ')}: .ci/run installs Debian's chromium package`)
  return `no Chromium found (${CANDIDATES.join(', ')}): install Debian's chromium package (apt-get install chromium) or set CHROMIUM_PATH to run the browser tests`
}

/**
 * Launches Chromium as the machine's probe does: no sandbox (tests run as root),
 * and none of the background connections a closed network would refuse.
 */
export async function launchBrowser (): Promise<Browser> {
  return await chromium.launch({
    executablePath: chromiumPath,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage']
  })
}

/** Where screenshots taken by the tests are kept for a person to look at. */
export const RESULTS_DIR = fileURLToPath(new URL('../test-results/', import.meta.url))

export async function screenshot (page: Page, name: string, fullPage = true): Promise<string> {
  mkdirSync(RESULTS_DIR, { recursive: true })
  const path = join(RESULTS_DIR, `${name}.png`)
  await page.screenshot({ path, fullPage })
  return path
}

/** Every console error and uncaught exception of a page, with the page's URL. */
export function collectErrors (page: Page): string[] {
  const errors: string[] = []
  page.on('console', (message) => { if (message.type() === 'error') errors.push(`${page.url()}: console: ${message.text()}`) })
  page.on('pageerror', (error) => { errors.push(`${page.url()}: ${error.message}`) })
  return errors
}
