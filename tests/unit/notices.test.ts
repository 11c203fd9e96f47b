// The licence and the third-party notices: LICENSE is Apache-2.0 (package.json says so, the SDK's too), and
// THIRD-PARTY-NOTICES.md is what `npm run notices` makes from the installed packages today, naming every
// package the console, the /docs page, the SDK bundle and the server ship, each with its licence text.
import { expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { NOTICES, renderNotices, shippedPackages } from '../../scripts/notices'

const ROOT = join(import.meta.dir, '..', '..')
const json = (p: string) => JSON.parse(readFileSync(join(ROOT, p), 'utf8'))

test('LICENSE is the Apache License 2.0, declared by the service and the SDK', () => {
  expect(readFileSync(join(ROOT, 'LICENSE'), 'utf8')).toContain('Apache License\n                           Version 2.0, January 2004')
  expect(json('package.json').license).toBe('Apache-2.0')
  expect(json('sdk/package.json').license).toBe('Apache-2.0')
})

test('THIRD-PARTY-NOTICES.md is current (npm run notices) and covers what the console and docs ship', () => {
  expect(readFileSync(NOTICES, 'utf8')).toBe(renderNotices())
  const names = shippedPackages().map((p) => p.name)
  for (const shipped of [
    'react',
    'react-dom',
    'scheduler',
    '@tanstack/react-query',
    '@tanstack/query-core',
    'uplot',
    'swagger-ui-dist',
    're2js',
    'elysia',
    'drizzle-orm',
    'bun',
  ])
    expect(names).toContain(shipped)
  // Every shipped licence is a permissive one (an SPDX expression of them, for packages that offer a choice).
  // BSL-1.0 (Boost): @stdlib's special functions ported from Boost.Math carry it beside Apache-2.0.
  const permissive = new Set([
    'MIT',
    'MIT-0',
    'Apache-2.0',
    'ISC',
    'BSD-2-Clause',
    'BSD-3-Clause',
    '0BSD',
    'Unlicense',
    'CC0-1.0',
    'BlueOak-1.0.0',
    'Python-2.0',
    'Zlib',
    'BSL-1.0',
  ])
  for (const p of shippedPackages()) {
    const parts = p.license
      .replace(/[()]/g, ' ')
      .split(/\s+(?:OR|AND)\s+|\s+/)
      .filter(Boolean)
    expect({ name: p.name, licences: parts.filter((l) => !permissive.has(l)) }).toEqual({ name: p.name, licences: [] })
  }
})
