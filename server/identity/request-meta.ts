// The client address of a request, noted by the HTTP layer when the request arrives (the socket's address,
// or behind a TRUSTED_PROXIES proxy the client its X-Forwarded-For names: http/client-address.ts), for
// sign-in throttling, sessions and audit.
const addresses = new WeakMap<Request, string>()

export function noteClientAddress(request: Request, address: string | undefined): void {
  if (address) addresses.set(request, address)
}

export const clientAddress = (request: Request): string | null => addresses.get(request) ?? null

export const requestMeta = (request: Request) => ({ ip: clientAddress(request), userAgent: request.headers.get('user-agent') })
