// The session cookie's name and attributes follow PUBLIC_URL (teams.md §3), and only a value of the shape
// the service issues is ever read from a Cookie header.
import { describe, expect, test } from 'bun:test'
import { clearedSessionCookie, readSessionCookie, sessionCookie, sessionCookieName } from '../../server/identity/cookies'
import { newSessionValue } from '../../server/identity/sessions'
import { waitAfter } from '../../server/identity/throttle'

const req = (cookie: string) => new Request('http://x/', { headers: { cookie } })

describe('session cookie', () => {
  test('https PUBLIC_URL: __Host- prefix and Secure; otherwise plain name, no Secure', () => {
    const https = { publicUrl: 'https://flags.example.com' }
    expect(sessionCookieName(https)).toBe('__Host-flagship_session')
    expect(sessionCookie(https, 'v')).toBe('__Host-flagship_session=v; Path=/; HttpOnly; SameSite=Strict; Secure')
    expect(sessionCookie({ publicUrl: undefined }, 'v')).toBe('flagship_session=v; Path=/; HttpOnly; SameSite=Strict')
    expect(clearedSessionCookie({ publicUrl: undefined })).toContain('Max-Age=0')
  })

  test('a value is 256 random bits in base64url, new every time', () => {
    const a = newSessionValue()
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(newSessionValue()).not.toBe(a)
  })

  test('reads only our cookie, only in the issued shape; anything else is "present but invalid"', () => {
    const v = newSessionValue()
    const plain = { publicUrl: undefined }
    expect(readSessionCookie(req(`other=1; flagship_session=${v}`), plain)).toBe(v)
    expect(readSessionCookie(req('other=1'), plain)).toBeUndefined()
    expect(readSessionCookie(req('flagship_session={"$ne":null}'), plain)).toBe('')
    expect(readSessionCookie(req(`flagship_session=${v}x`), plain)).toBe('')
    // Over https only the __Host- cookie counts (a plain-named one could be planted by a sibling host).
    expect(readSessionCookie(req(`flagship_session=${v}`), { publicUrl: 'https://f.example.com' })).toBeUndefined()
  })

  test('sign-in waits: none for 4 failures, then 1 s doubling to 15 minutes', () => {
    expect([1, 4, 5, 6, 7, 20, 40].map(waitAfter)).toEqual([0, 0, 1000, 2000, 4000, 15 * 60_000, 15 * 60_000])
  })
})
