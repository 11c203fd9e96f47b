// Every reference vector of tests/fixtures/rollout-vectors.json must reproduce (docs/behaviour.md §4): hash and bucket.
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { Bucketer, bucketOf, inRollout, murmur3, murmur3After, murmur3Bytes, murmur3Prefix } from '../../server/engine'

interface Vector {
  flag: string
  value: string
  hash: number
  bucket: number
}
const fixture = JSON.parse(readFileSync(new URL('../fixtures/rollout-vectors.json', import.meta.url), 'utf8')) as {
  algorithm: string
  vectors: Vector[]
}

describe('rollout reference vectors', () => {
  test('fixture is loaded', () => {
    expect(fixture.vectors.length).toBeGreaterThan(0)
  })

  test('every vector reproduces hash and bucket', () => {
    const failures: string[] = []
    for (const v of fixture.vectors) {
      const hash = murmur3(`${v.flag}:${v.value}`)
      const bucket = bucketOf(v.flag, v.value)
      if (hash !== v.hash || bucket !== v.bucket) failures.push(`${v.flag}:${v.value} -> ${hash}/${bucket}, want ${v.hash}/${v.bucket}`)
    }
    expect(failures).toEqual([])
  })

  test('long strings (beyond the scratch buffer) hash like their bytes', () => {
    const long = 'é用'.repeat(400) + 'x'
    expect(murmur3(long)).toBe(murmur3Bytes(new TextEncoder().encode(long)))
  })

  test('ASCII, non-ASCII at any position, lone surrogates and lengths around the scratch buffer hash like their UTF-8 bytes', () => {
    const bytes = (s: string) => murmur3Bytes(new TextEncoder().encode(s))
    for (const n of [0, 1, 3, 4, 5, 341, 342, 343, 1023, 1024, 1025, 3000]) {
      const ascii = 'abcdefghij'.repeat(301).slice(0, n)
      expect(murmur3(ascii)).toBe(bytes(ascii))
      for (const at of [0, Math.floor(n / 2), n]) {
        for (const odd of ['ü', '\ud800', '😀']) {
          const mixed = ascii.slice(0, at) + odd + ascii.slice(at)
          expect(murmur3(mixed)).toBe(bytes(mixed))
        }
      }
    }
  })

  test('known MurmurHash3 x86_32 values (seed handling)', () => {
    expect(murmur3('')).toBe(0)
    expect(murmur3('', 1)).toBe(0x514e28b7)
    expect(murmur3('', 0xffffffff)).toBe(0x81f16f39)
    expect(murmur3('test')).toBe(0xba6bd213)
    expect(murmur3('Hello, world!', 1234)).toBe(0xfaf6cdb3)
    expect(murmur3('The quick brown fox jumps over the lazy dog')).toBe(0x2e4ff723)
  })

  test('inside when bucket < percentage', () => {
    const v = fixture.vectors[0]!
    expect(inRollout(v.flag, v.value, v.bucket)).toBe(false)
    expect(inRollout(v.flag, v.value, v.bucket + 0.01)).toBe(true)
    expect(inRollout(v.flag, v.value, 0)).toBe(false)
    expect(inRollout(v.flag, v.value, 100)).toBe(true)
  })

  const PREFIX_HASHING =
    'hashing on after a prefix of any length (0 to 3 bytes of an unfinished block, non-ASCII too) ' + 'equals hashing the joined string'
  test(PREFIX_HASHING, () => {
    const bytes = (s: string) => murmur3Bytes(new TextEncoder().encode(s))
    const prefixes = ['', 'a', 'ab', 'abc', 'abcd', 'flag:', 'ü:', 'checkout-v2:', '😀x']
    const rests = ['', 'u', 'us', 'use', 'user', 'user-1', 'user-12345678', 'ü', 'x\ud800', 'abc😀', '用户-7', 'a'.repeat(1030)]
    for (const p of prefixes) {
      for (const seed of [0, 1234]) {
        const start = murmur3Prefix(p, seed)
        for (const r of rests) expect(murmur3After(start, r)).toBe(murmur3Bytes(new TextEncoder().encode(p + r), undefined, seed))
      }
    }
    expect(murmur3After(murmur3Prefix(''), 'test')).toBe(bytes('test'))
  })

  test('a Bucketer gives every reference vector its bucket', () => {
    const failures = fixture.vectors.filter(
      (v) => new Bucketer(v.flag).bucket(v.value) !== v.bucket || bucketOf(v.flag, v.value) !== v.bucket,
    )
    expect(failures).toEqual([])
  })
})
