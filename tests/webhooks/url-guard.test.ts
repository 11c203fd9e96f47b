// Unit tests of the webhook SSRF guard: every blocked address form, at registration (syntax) and at
// delivery (after DNS, with an injected resolver).
import { describe, expect, test } from 'bun:test'
import { checkResolvedAddresses, checkWebhookUrl, isPublicAddress, nonPublicReason, type Resolver } from '../../server/webhooks/url-guard'
import { sign, verify } from '../../server/webhooks/signer'

const strict = { allowPrivate: false }
const lax = { allowPrivate: true }

describe('checkWebhookUrl (strict)', () => {
  test.each([
    'https://hooks.example.com/flags',
    'https://hooks.example.com:8443/a/b?c=d',
    'https://93.184.216.34/hook',
    'https://[2606:2800:220:1:248:1893:25c8:1946]/hook',
    'https://EXAMPLE.com./x',
    'https://xn--exmple-4nf.com/',
  ])('accepts %s', (url) => {
    expect(checkWebhookUrl(url, strict)).toEqual({ ok: true })
  })

  test.each([
    // scheme
    ['http://hooks.example.com/', /https/],
    ['ftp://hooks.example.com/', /https/],
    ['file:///etc/passwd', /https/],
    ['javascript:alert(1)', /https/],
    ['hooks.example.com/x', /valid absolute URL/],
    ['', /required/],
    [' https://hooks.example.com/', /whitespace/],
    ['https://hooks.example.com/a\nb', /whitespace/],
    // credentials
    ['https://user:pw@hooks.example.com/', /credentials/],
    ['https://user@hooks.example.com/', /credentials/],
    // host names
    ['https://localhost/', /local or internal/],
    ['https://LOCALHOST./', /local or internal/],
    ['https://api.localhost/', /local or internal/],
    ['https://printer.local/', /local or internal/],
    ['https://metadata.google.internal/computeMetadata/v1/', /local or internal/],
    ['https://db.corp.internal./', /local or internal/],
    ['https://router.home.arpa/', /local or internal/],
    ['https://intranet/', /fully qualified/],
    // IPv4 literals
    ['https://127.0.0.1/', /loopback/],
    ['https://127.255.255.254/', /loopback/],
    ['https://0.0.0.0/', /0\.0\.0\.0\/8/],
    ['https://0.1.2.3/', /0\.0\.0\.0\/8/],
    ['https://10.0.0.1/', /10\.0\.0\.0\/8/],
    ['https://172.16.0.1/', /172\.16/],
    ['https://172.31.255.255/', /172\.16/],
    ['https://192.168.1.1/', /192\.168/],
    ['https://169.254.169.254/latest/meta-data/', /link-local/],
    ['https://100.64.0.1/', /carrier-grade NAT/],
    ['https://100.127.255.255/', /carrier-grade NAT/],
    ['https://224.0.0.1/', /multicast/],
    ['https://255.255.255.255/', /reserved/],
    ['https://192.0.2.10/', /documentation/],
    // other spellings of IPv4 addresses
    ['https://2130706433/', /non-canonical/],
    ['https://0177.0.0.1/', /non-canonical/],
    ['https://0x7f.1/', /non-canonical/],
    ['https://0x7f000001/', /non-canonical/],
    ['https://127.1/', /non-canonical/],
    ['https://%31%32%37.0.0.1/', /non-canonical/],
    ['https://0xA9FEA9FE/', /non-canonical/],
    ['https://134744072/', /non-canonical/], // 8.8.8.8: still refused, one spelling per address
    ['https:\\\\127.0.0.1\\x', /non-canonical|loopback/],
    // IPv6 literals
    ['https://[::1]/', /loopback/],
    ['https://[0:0:0:0:0:0:0:1]/', /loopback/],
    ['https://[::]/', /unspecified/],
    ['https://[fe80::1]/', /link-local/],
    ['https://[febf:ffff::1]/', /link-local/],
    ['https://[fc00::1]/', /unique-local/],
    ['https://[fd12:3456:789a::1]/', /unique-local/],
    ['https://[::ffff:127.0.0.1]/', /IPv4-mapped/],
    ['https://[::ffff:7f00:1]/', /IPv4-mapped/],
    ['https://[::ffff:a9fe:a9fe]/', /IPv4-mapped/],
    ['https://[::ffff:8.8.8.8]/', /IPv4-mapped/],
    ['https://[0:0:0:0:0:ffff:7f00:0001]/', /IPv4-mapped/],
    ['https://[::127.0.0.1]/', /IPv4-compatible/],
    ['https://[64:ff9b::7f00:1]/', /NAT64/],
    ['https://[2002:7f00:1::]/', /6to4/],
    ['https://[ff02::1]/', /multicast/],
    ['https://[2001:db8::1]/', /documentation/],
    ['https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', /Teredo/],
  ])('rejects %s', (url, reason) => {
    const r = checkWebhookUrl(url, strict)
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.reason).toMatch(reason)
  })
})

describe('checkWebhookUrl (WEBHOOK_ALLOW_PRIVATE_TARGETS)', () => {
  test.each([
    'http://127.0.0.1:8080/hook',
    'http://localhost:3000/',
    'https://10.1.2.3/',
    'http://[::1]:9000/',
    'http://receiver.internal/',
    'http://svc/',
  ])('allows %s', (url) => {
    expect(checkWebhookUrl(url, lax)).toEqual({ ok: true })
  })
  test.each([
    ['ftp://127.0.0.1/', /scheme/],
    ['http://u:p@127.0.0.1/', /credentials/],
    ['http://2130706433/', /non-canonical/],
  ])('still rejects %s', (url, reason) => {
    const r = checkWebhookUrl(url, lax)
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.reason).toMatch(reason)
  })
})

describe('isPublicAddress', () => {
  test.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '100.63.255.255',
    '100.128.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '192.167.255.255',
    '169.253.0.1',
    '11.0.0.0',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '[2a00:1450:4001:82a::200e]',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('%s is public', (ip) => {
    expect(isPublicAddress(ip)).toBe(true)
  })
  test.each([
    '127.0.0.1',
    '10.255.255.255',
    '172.16.0.0',
    '192.168.0.1',
    '169.254.0.1',
    '100.64.0.0',
    '0.0.0.0',
    '240.0.0.1',
    '::1',
    '::',
    'fe80::1',
    'fc00::',
    'fdff:ffff::1',
    '::ffff:1.2.3.4',
    '::ffff:0102:0304',
    '[::1]',
    'fe80::1%eth0',
    '0177.0.0.1',
    'not-an-ip',
    '1.2.3',
  ])('%s is not public', (ip) => {
    expect(isPublicAddress(ip)).toBe(false)
  })
  test('explains why', () => {
    expect(nonPublicReason('10.1.1.1')).toMatch(/private/)
    expect(nonPublicReason('8.8.8.8')).toBeNull()
  })
})

describe('checkResolvedAddresses', () => {
  const table: Record<string, string[]> = {
    'public.example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
    'rebind.example.com': ['93.184.216.34', '127.0.0.1'],
    'private.example.com': ['10.0.0.5'],
    'metadata.example.com': ['169.254.169.254'],
    'mapped.example.com': ['::ffff:127.0.0.1'],
    'v6local.example.com': ['fd00::1'],
    'cgnat.example.com': ['100.64.1.1'],
    'empty.example.com': [],
  }
  const resolve: Resolver = async (host) => {
    if (!(host in table)) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' })
    return table[host]
  }

  test('a host name with only public addresses passes, IPv4 first', async () => {
    expect(await checkResolvedAddresses('public.example.com', { allowPrivate: false, resolve })).toEqual({
      ok: true,
      addresses: ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
    })
  })
  test.each([
    ['private.example.com', /10\.0\.0\.5.*private/],
    ['rebind.example.com', /127\.0\.0\.1.*loopback/],
    ['metadata.example.com', /link-local/],
    ['mapped.example.com', /IPv4-mapped/],
    ['v6local.example.com', /unique-local/],
    ['cgnat.example.com', /carrier-grade/],
    ['empty.example.com', /no addresses/],
    ['missing.example.com', /ENOTFOUND/],
  ])('%s is refused', async (host, reason) => {
    const r = await checkResolvedAddresses(host, { allowPrivate: false, resolve })
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.reason).toMatch(reason)
  })
  test('literal addresses are checked without a lookup', async () => {
    const never: Resolver = async () => {
      throw new Error('must not resolve')
    }
    expect(await checkResolvedAddresses('[::1]', { allowPrivate: false, resolve: never })).toMatchObject({ ok: false })
    expect(await checkResolvedAddresses('8.8.8.8', { allowPrivate: false, resolve: never })).toEqual({ ok: true, addresses: ['8.8.8.8'] })
  })
  test('allowPrivate lets private answers through (but a failed lookup still fails)', async () => {
    expect(await checkResolvedAddresses('private.example.com', { allowPrivate: true, resolve })).toEqual({
      ok: true,
      addresses: ['10.0.0.5'],
    })
    expect((await checkResolvedAddresses('missing.example.com', { allowPrivate: true, resolve })).ok).toBe(false)
  })
  test('the default resolver is the system one', async () => {
    const r = await checkResolvedAddresses('localhost', { allowPrivate: false })
    expect(r.ok).toBe(false)
  })
})

describe('signer', () => {
  test('hex HMAC-SHA256 of the raw body', () => {
    // RFC 4231 test case 2
    expect(sign('what do ya want for nothing?', 'Jefe')).toBe('5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843')
    const body = '{"event":"flag.created"}'
    expect(verify(body, 's3cret', sign(body, 's3cret'))).toBe(true)
    expect(verify(body, 'other', sign(body, 's3cret'))).toBe(false)
    expect(verify(body + ' ', 's3cret', sign(body, 's3cret'))).toBe(false)
    expect(verify(body, 's3cret', 'zz')).toBe(false)
  })
})
