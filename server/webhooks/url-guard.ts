// SSRF guard for webhook targets (docs/behaviour.md §6). Two layers:
//  1. checkWebhookUrl: syntax-level, at registration and again before every delivery: scheme, no
//     credentials, host names that name internal things, literal IP addresses in every spelling.
//  2. checkResolvedAddresses: at delivery, after DNS resolution: every address the host resolves to must
//     be public. The worker then connects to one of exactly those addresses (see worker.ts), so a DNS
//     answer that changes between the check and the connect (rebinding) cannot redirect the request.
// WEBHOOK_ALLOW_PRIVATE_TARGETS (allowPrivate) lifts the address and host-name rules and allows http://,
// for development and tests only.
import { isIP } from 'node:net'
import { lookup } from 'node:dns/promises'

export type GuardResult = { ok: true } | { ok: false; reason: string }
export type ResolvedResult = { ok: true; addresses: string[] } | { ok: false; reason: string }

/** Resolves a host name to its addresses (all of them, IPv4 and IPv6). */
export type Resolver = (host: string) => Promise<string[]>

export const MAX_URL_LENGTH = 2048

const BLOCKED_NAME_SUFFIXES = ['.localhost', '.local', '.internal', '.localdomain', '.home.arpa']
const BLOCKED_NAMES = new Set(['localhost', 'localhost.localdomain', 'local', 'internal', 'home.arpa'])

// ---------------------------------------------------------------------------------------------------
// Address classification

type Cidr4 = [base: number, bits: number, why: string]

const ip4 = (a: number, b: number, c: number, d: number) => ((a << 24) | (b << 16) | (c << 8) | d) >>> 0

/** Everything that is not globally routable unicast. */
const NON_PUBLIC_V4: Cidr4[] = [
  [ip4(0, 0, 0, 0), 8, '"this network" 0.0.0.0/8'],
  [ip4(10, 0, 0, 0), 8, 'private 10.0.0.0/8'],
  [ip4(100, 64, 0, 0), 10, 'carrier-grade NAT 100.64.0.0/10'],
  [ip4(127, 0, 0, 0), 8, 'loopback 127.0.0.0/8'],
  [ip4(169, 254, 0, 0), 16, 'link-local 169.254.0.0/16'],
  [ip4(172, 16, 0, 0), 12, 'private 172.16.0.0/12'],
  [ip4(192, 0, 0, 0), 24, 'IETF protocol assignments 192.0.0.0/24'],
  [ip4(192, 0, 2, 0), 24, 'documentation 192.0.2.0/24'],
  [ip4(192, 88, 99, 0), 24, '6to4 relay anycast 192.88.99.0/24'],
  [ip4(192, 168, 0, 0), 16, 'private 192.168.0.0/16'],
  [ip4(198, 18, 0, 0), 15, 'benchmarking 198.18.0.0/15'],
  [ip4(198, 51, 100, 0), 24, 'documentation 198.51.100.0/24'],
  [ip4(203, 0, 113, 0), 24, 'documentation 203.0.113.0/24'],
  [ip4(224, 0, 0, 0), 4, 'multicast 224.0.0.0/4'],
  [ip4(240, 0, 0, 0), 4, 'reserved 240.0.0.0/4 (including broadcast)'],
]

const inCidr4 = (addr: number, base: number, bits: number) => bits === 0 || addr >>> (32 - bits) === base >>> (32 - bits)

/** Strict dotted-decimal IPv4 (no leading zeros, no short forms) -> 32-bit number, else null. */
function parseIPv4(s: string): number | null {
  const parts = s.split('.')
  if (parts.length !== 4) return null
  let n = 0
  for (const p of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(p) || Number(p) > 255) return null
    n = n * 256 + Number(p)
  }
  return n >>> 0
}

/** IPv6 text (already validated by isIP) -> eight 16-bit groups, else null. Handles `::` and a trailing dotted IPv4. */
function parseIPv6(s: string): number[] | null {
  let text = s
  let tail: number[] = []
  const lastColon = text.lastIndexOf(':')
  const last = text.slice(lastColon + 1)
  if (last.includes('.')) {
    const v4 = parseIPv4(last)
    if (v4 === null) return null
    tail = [v4 >>> 16, v4 & 0xffff]
    text = text.slice(0, lastColon + 1)
    if (!text.endsWith('::')) text = text.slice(0, -1)
  }
  const halves = text.split('::')
  if (halves.length > 2) return null
  const split = (h: string) => (h === '' ? [] : h.split(':'))
  const head = split(halves[0])
  const rest = halves.length === 2 ? split(halves[1]) : []
  const explicit = head.length + rest.length + tail.length
  if (halves.length === 1 ? explicit !== 8 : explicit > 8) return null
  const fill: string[] = Array(halves.length === 2 ? 8 - explicit : 0).fill('0')
  const groups: number[] = []
  for (const g of [...head, ...fill, ...rest]) {
    if (!/^[0-9a-f]{1,4}$/i.test(g)) return null
    groups.push(parseInt(g, 16))
  }
  return [...groups, ...tail]
}

const v4FromGroups = (hi: number, lo: number) => ((hi << 16) | lo) >>> 0
const v4Text = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.')

function classifyV4(n: number): string | null {
  for (const [base, bits, why] of NON_PUBLIC_V4) if (inCidr4(n, base, bits)) return why
  return null
}

function classifyV6(g: number[]): string | null {
  const zeroUpTo = (k: number) => g.slice(0, k).every((x) => x === 0)
  if (zeroUpTo(8)) return 'unspecified address ::'
  if (zeroUpTo(7) && g[7] === 1) return 'IPv6 loopback ::1'
  if (zeroUpTo(5) && g[5] === 0xffff) return `IPv4-mapped IPv6 address (of ${v4Text(v4FromGroups(g[6], g[7]))})`
  if (zeroUpTo(4) && g[4] === 0xffff && g[5] === 0) return 'IPv4-translated IPv6 address ::ffff:0:0:0/96'
  if (zeroUpTo(6)) return `IPv4-compatible IPv6 address (of ${v4Text(v4FromGroups(g[6], g[7]))})`
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return 'local-use NAT64 64:ff9b:1::/48'
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0) {
    const why = classifyV4(v4FromGroups(g[6], g[7]))
    return why ? `NAT64 address of ${why}` : null
  }
  if ((g[0] & 0xfe00) === 0xfc00) return 'IPv6 unique-local fc00::/7'
  if ((g[0] & 0xffc0) === 0xfe80) return 'IPv6 link-local fe80::/10'
  if ((g[0] & 0xffc0) === 0xfec0) return 'IPv6 site-local fec0::/10'
  if ((g[0] & 0xff00) === 0xff00) return 'IPv6 multicast ff00::/8'
  if ((g[0] & 0xe000) !== 0x2000) return 'not IPv6 global unicast 2000::/3'
  if (g[0] === 0x2001 && g[1] === 0x0db8) return 'IPv6 documentation 2001:db8::/32'
  if (g[0] === 0x3fff && (g[1] & 0xf000) === 0) return 'IPv6 documentation 3fff::/20'
  if (g[0] === 0x2001 && g[1] < 0x200) return 'IETF protocol assignments 2001::/23 (including Teredo)'
  if (g[0] === 0x2002) {
    const why = classifyV4(v4FromGroups(g[1], g[2]))
    return why ? `6to4 address of ${why}` : null
  }
  return null
}

/** Why an IP address is not a public unicast address, or null when it is public. Brackets and an IPv6 zone are ignored. */
export function nonPublicReason(ip: string): string | null {
  let s = ip.trim()
  if (s.startsWith('[') && s.endsWith(']')) s = s.slice(1, -1)
  const zone = s.indexOf('%')
  if (zone !== -1) {
    // A zone id only makes sense for link-local addresses; never public.
    return 'IPv6 address with a zone id'
  }
  const family = isIP(s)
  if (family === 4) {
    const n = parseIPv4(s)
    return n === null ? 'IPv4 address in a non-canonical spelling' : classifyV4(n)
  }
  if (family === 6) {
    const groups = parseIPv6(s)
    return groups === null ? 'unparseable IPv6 address' : classifyV6(groups)
  }
  return 'not an IP address'
}

/** True when ip is a globally routable unicast address (IPv4 or IPv6, brackets allowed). */
export function isPublicAddress(ip: string): boolean {
  return nonPublicReason(ip) === null
}

// ---------------------------------------------------------------------------------------------------
// URL check (syntax level)

/** The host exactly as written in the URL (before WHATWG normalisation), lowercased, without userinfo or port. */
function rawHostOf(url: string): string | null {
  const m = /^[a-zA-Z][a-zA-Z0-9+.-]*:[\\/]*([^\\/?#]*)/.exec(url)
  if (!m) return null
  let authority = m[1]
  const at = authority.lastIndexOf('@')
  if (at !== -1) authority = authority.slice(at + 1)
  if (authority.startsWith('[')) {
    const end = authority.indexOf(']')
    return end === -1 ? authority.toLowerCase() : authority.slice(0, end + 1).toLowerCase()
  }
  const colon = authority.lastIndexOf(':')
  return (colon === -1 ? authority : authority.slice(0, colon)).toLowerCase()
}

/** Syntax-level rules; no DNS. Used at registration and again before each delivery. */
export function checkWebhookUrl(url: string, opts: { allowPrivate: boolean }): GuardResult {
  if (typeof url !== 'string' || url.length === 0) return { ok: false, reason: 'URL is required' }
  if (url.length > MAX_URL_LENGTH) return { ok: false, reason: `URL is longer than ${MAX_URL_LENGTH} characters` }
  if (/[\s\x00-\x1f\x7f]/.test(url)) return { ok: false, reason: 'URL contains whitespace or control characters' }
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return { ok: false, reason: 'not a valid absolute URL' }
  }
  if (parsed.protocol !== 'https:' && !(opts.allowPrivate && parsed.protocol === 'http:')) {
    return { ok: false, reason: opts.allowPrivate ? 'scheme must be https or http' : 'scheme must be https' }
  }
  if (parsed.username || parsed.password) return { ok: false, reason: 'credentials in the URL are not allowed (use the webhook secret)' }
  if (parsed.port === '0') return { ok: false, reason: 'port 0 is not allowed' }
  const hostname = parsed.hostname
  if (!hostname) return { ok: false, reason: 'URL has no host' }

  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname
  const family = isIP(bare)
  if (family === 4) {
    // WHATWG URL turns 2130706433, 0177.0.0.1, 0x7f.1, 127.1 and percent-encoded forms into 127.0.0.1;
    // only the canonical dotted-decimal spelling is accepted, so what was registered is what is shown.
    if (rawHostOf(url) !== bare)
      return { ok: false, reason: `IPv4 address written in a non-canonical form (it means ${bare}); write it as ${bare}` }
  }
  if (opts.allowPrivate) return { ok: true }

  if (family !== 0) {
    const why = nonPublicReason(bare)
    return why ? { ok: false, reason: `address ${bare} is not public: ${why}` } : { ok: true }
  }
  return checkHostName(hostname)
}

function checkHostName(hostname: string): GuardResult {
  const name = hostname.toLowerCase().replace(/\.$/, '')
  if (BLOCKED_NAMES.has(name) || BLOCKED_NAME_SUFFIXES.some((s) => name.endsWith(s))) {
    return { ok: false, reason: `host ${name} names a local or internal host (localhost, .local and .internal are not allowed)` }
  }
  if (!name.includes('.')) return { ok: false, reason: `host ${name} is not a fully qualified domain name` }
  // A name whose last label is all digits would be parsed as an IPv4 address by the URL parser;
  // anything that reaches here with one is malformed.
  if (/^\d+$/.test(name.slice(name.lastIndexOf('.') + 1))) return { ok: false, reason: `host ${name} is not a valid host name` }
  return { ok: true }
}

// ---------------------------------------------------------------------------------------------------
// Resolution check (delivery time)

export const systemResolver: Resolver = async (host) => {
  const answers = await lookup(host, { all: true, verbatim: true })
  return answers.map((a) => a.address)
}

/**
 * Resolves host (a URL hostname: a name, an IPv4 literal or a bracketed IPv6 literal) and checks every
 * address. On success returns the addresses (IPv4 first) so the caller connects to one of exactly these.
 */
export async function checkResolvedAddresses(host: string, opts: { allowPrivate: boolean; resolve?: Resolver }): Promise<ResolvedResult> {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host
  let addresses: string[]
  if (isIP(bare)) {
    addresses = [bare]
  } else {
    try {
      addresses = await (opts.resolve ?? systemResolver)(bare.replace(/\.$/, ''))
    } catch (e) {
      const code = (e as { code?: string }).code
      return { ok: false, reason: `DNS lookup of ${bare} failed${code ? ` (${code})` : ''}` }
    }
    if (!addresses.length) return { ok: false, reason: `DNS lookup of ${bare} returned no addresses` }
  }
  if (!opts.allowPrivate) {
    for (const a of addresses) {
      const why = nonPublicReason(a)
      if (why) return { ok: false, reason: `${bare} resolves to ${a}, which is not public: ${why}` }
    }
  }
  const v4 = addresses.filter((a) => isIP(a) === 4)
  const v6 = addresses.filter((a) => isIP(a) === 6)
  const ordered = [...new Set([...v4, ...v6])]
  if (!ordered.length) return { ok: false, reason: `DNS lookup of ${bare} returned no usable addresses` }
  return { ok: true, addresses: ordered }
}
