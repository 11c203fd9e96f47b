// The client's address behind reverse proxies (TRUSTED_PROXIES, docs/operations.md "TLS and a reverse
// proxy"). Behind a proxy every connection comes from the proxy, so per-address sign-in limits, audit entries
// and sessions would all name it. X-Forwarded-For is believed only when the connection comes from a trusted
// proxy, and then only as far as the chain of trusted proxies reaches: the client is the right-most hop that
// is not a trusted proxy (everything to its left is whatever that untrusted hop chose to send). From anyone
// else the header is ignored, so it cannot be spoofed. Addresses and CIDR ranges are matched with node's
// net.BlockList (IPv4 and IPv6).
import { BlockList, isIP } from 'node:net'
// TRUSTED_PROXIES itself is parsed with the other settings (settings.ts parseTrustedProxies).

/** An IPv4 address a dual-stack socket reports as IPv6 (`::ffff:10.0.0.1`) is written as IPv4. */
export function normalAddress(address: string): string {
  return /^::ffff:[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$/i.test(address) ? address.slice(7) : address
}

/** One X-Forwarded-For hop as an address, or undefined: plain addresses, `[v6]` and `[v6]:port`, `v4:port`. */
function hopAddress(hop: string): string | undefined {
  let h = hop.trim()
  const bracketed = /^\[([^\]]+)\](?::[0-9]+)?$/.exec(h)
  if (bracketed) h = bracketed[1]!
  else if (/^[0-9.]+:[0-9]+$/.test(h)) h = h.slice(0, h.indexOf(':'))
  return isIP(h) === 0 ? undefined : normalAddress(h)
}

export type ClientAddress = (peer: string | undefined, forwardedFor: string | null) => string | undefined

/** The connection's address of a request the fast path re-made (fast-ofrep.ts hands Elysia a copy with the
 *  body it read, and a copy has no socket to ask). */
const copiedPeers = new WeakMap<Request, string>()
export function notePeerOfCopy(copy: Request, peer: string | undefined): void {
  if (peer !== undefined) copiedPeers.set(copy, peer)
}
export const peerOfCopy = (request: Request): string | undefined => copiedPeers.get(request)

/** The client address of a request, given the connection's peer address and its X-Forwarded-For. */
export function clientAddressResolver(trustedProxies: readonly string[]): ClientAddress {
  if (trustedProxies.length === 0) return (peer) => (peer === undefined ? undefined : normalAddress(peer))
  const trusted = new BlockList()
  for (const entry of trustedProxies) {
    const [address, prefix] = entry.split('/') as [string, string | undefined]
    const type = isIP(address) === 4 ? 'ipv4' : 'ipv6'
    if (prefix === undefined) trusted.addAddress(address, type)
    else trusted.addSubnet(address, Number(prefix), type)
  }
  const isTrusted = (address: string) => trusted.check(address, isIP(address) === 4 ? 'ipv4' : 'ipv6')
  return (peer, forwardedFor) => {
    if (peer === undefined) return undefined
    let client = normalAddress(peer)
    if (forwardedFor === null || !isTrusted(client)) return client
    const hops = forwardedFor.split(',')
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hopAddress(hops[i]!)
      // Not an address: nothing to its left can be believed; the last trusted hop is what we know.
      if (hop === undefined) return client
      client = hop
      if (!isTrusted(hop)) return hop
    }
    return client
  }
}
