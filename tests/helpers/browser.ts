// Debian's Chromium through playwright-core for the browser suites. Without it a suite fails under
// CI=true (a test says what to install) and is skipped on a developer machine.
import { describe, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { chromium, type Browser } from 'playwright-core'

export const CHROMIUM = '/usr/bin/chromium'
const haveChromium = existsSync(CHROMIUM)

/** `describe` when Chromium is there; otherwise a failing test under CI, a skip elsewhere. */
export function browserSuite(name: string, body: () => void): void {
  if (haveChromium) return describe(name, body)
  if (process.env.CI === 'true') {
    test(`${name}: chromium is installed`, () => {
      throw new Error(`${CHROMIUM} not found: install it (apt-get install -y chromium) so the browser tests can run`)
    })
  } else {
    console.warn(`[e2e] SKIPPED ${name}: ${CHROMIUM} not found (apt-get install -y chromium)`)
  }
  describe.skip(name, body)
}

export const launchChromium = (): Promise<Browser> =>
  chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
