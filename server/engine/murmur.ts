// MurmurHash3 x86 32-bit. This is the rollout hash of docs/behaviour.md §4; every server and SDK must agree on it
// bit for bit, so it hashes the UTF-8 bytes of a string exactly as the reference vectors do.

const C1 = 0xcc9e2d51
const C2 = 0x1b873593

/** MurmurHash3 x86 32-bit of `bytes`; the result is an unsigned 32-bit integer. */
export function murmur3Bytes(bytes: Uint8Array, length: number = bytes.length, seed = 0): number {
  let h = seed | 0
  const blocks = length & ~3
  let i = 0
  // Body: little-endian 4-byte blocks. Math.imul keeps the multiplications in 32 bits.
  for (; i < blocks; i += 4) {
    let k = bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24)
    k = Math.imul(k, C1)
    k = (k << 15) | (k >>> 17)
    k = Math.imul(k, C2)
    h ^= k
    h = (h << 13) | (h >>> 19)
    h = (Math.imul(h, 5) + 0xe6546b64) | 0
  }
  // Tail: the last 1 to 3 bytes.
  let k = 0
  switch (length & 3) {
    case 3:
      k ^= bytes[i + 2]! << 16
    // falls through
    case 2:
      k ^= bytes[i + 1]! << 8
    // falls through
    case 1:
      k ^= bytes[i]!
      k = Math.imul(k, C1)
      k = (k << 15) | (k >>> 17)
      k = Math.imul(k, C2)
      h ^= k
  }
  // Finalisation (fmix32).
  h ^= length
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}

const encoder = new TextEncoder()
// One fixed-size scratch buffer so the common case (short keys and ids) allocates nothing. It never grows:
// a string that might not fit (UTF-8 needs at most 3 bytes per UTF-16 unit) is encoded into a fresh array.
// Sharing it is safe because JavaScript runs this synchronous function to completion.
const SCRATCH = new Uint8Array(1024)
const SCRATCH_CHARS = SCRATCH.length / 3

/** MurmurHash3 x86 32-bit over the UTF-8 bytes of `text` (lone surrogates become U+FFFD, as TextEncoder does). */
export function murmur3(text: string, seed = 0): number {
  const n = text.length
  if (n <= SCRATCH.length) {
    // ASCII (ids, keys: nearly always) is its own UTF-8; copying it by hand skips the encoder call and the
    // object it returns, which cost more than the hash itself.
    let i = 0
    for (; i < n; i++) {
      const c = text.charCodeAt(i)
      if (c > 0x7f) break
      SCRATCH[i] = c
    }
    if (i === n) return murmur3Bytes(SCRATCH, n, seed)
  }
  if (n <= SCRATCH_CHARS) {
    const { written } = encoder.encodeInto(text, SCRATCH)
    return murmur3Bytes(SCRATCH, written, seed)
  }
  return murmur3Bytes(encoder.encode(text), undefined, seed)
}
