// The README stays a front door (under 250 lines), and every relative link in it and in docs/ leads to a
// file that exists (an anchor is not checked).
import { expect, test } from 'bun:test'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'

const ROOT = join(import.meta.dir, '..', '..')
const files = [
  'README.md',
  'CHANGELOG.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
]

test('the README is under 250 lines', () => {
  expect(readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').length).toBeLessThan(250)
})

test('relative links in the README and docs/ lead to files that exist', () => {
  const broken: string[] = []
  for (const file of files) {
    const text = readFileSync(join(ROOT, file), 'utf8')
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1]!.split('#')[0]!
      if (!target || /^[a-z]+:/.test(target)) continue
      if (!existsSync(join(ROOT, dirname(file), target))) broken.push(`${file} -> ${m[1]}`)
    }
  }
  expect(broken).toEqual([])
})
