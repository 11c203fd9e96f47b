// TRUSTED_PROXIES: what the setting accepts, and which X-Forwarded-For hop is the client (http/client-address.ts).
import { expect, test } from 'bun:test'
import { clientAddressResolver } from '../../server/http/client-address'
import { parseTrustedProxies } from '../../server/settings'
import { loadSettings } from '../../server/settings'

test('TRUSTED_PROXIES takes addresses and CIDR ranges, IPv4 and IPv6, and refuses anything else', () => {
  expect(loadSettings({}).trustedProxies).toEqual([])
  expect(parseTrustedProxies(' 10.0.0.0/8, 192.168.1.5 ,::1, fd00::/8')).toEqual(['10.0.0.0/8', '192.168.1.5', '::1', 'fd00::/8'])
  for (const bad of ['10.0.0.0/33', 'fd00::/129', 'proxy.local', '10.0.0.1/8/2', '10.0.0/8', '*']) {
    expect(() => loadSettings({ TRUSTED_PROXIES: bad })).toThrow(/TRUSTED_PROXIES must be/)
  }
})

test('the right-most untrusted hop is the client; the header is ignored from an untrusted peer', () => {
  const resolve = clientAddressResolver(parseTrustedProxies('10.0.0.0/8,::1,fd00::/8'))
  expect(resolve('203.0.113.9', '1.2.3.4')).toBe('203.0.113.9')
  expect(resolve('10.0.0.2', '1.2.3.4, 5.6.7.8')).toBe('5.6.7.8')
  expect(resolve('10.0.0.2', '1.2.3.4, 5.6.7.8, 10.9.9.9')).toBe('5.6.7.8')
  expect(resolve('::1', '2001:db8::1, fd00::2')).toBe('2001:db8::1')
  expect(resolve('::ffff:10.0.0.2', '[2001:db8::5]:4711')).toBe('2001:db8::5')
  expect(resolve('10.0.0.2', '198.51.100.1:5555')).toBe('198.51.100.1')
  // Every hop a trusted proxy: the left-most is as far as we know; garbage stops the walk.
  expect(resolve('10.0.0.2', '10.0.0.3, 10.0.0.4')).toBe('10.0.0.3')
  expect(resolve('10.0.0.2', 'not-an-address, 10.0.0.4')).toBe('10.0.0.4')
  expect(resolve('10.0.0.2', null)).toBe('10.0.0.2')
  // No trusted proxies: the connection's address, an IPv4-mapped one written as IPv4.
  const direct = clientAddressResolver([])
  expect(direct('::ffff:127.0.0.1', '1.2.3.4')).toBe('127.0.0.1')
})
