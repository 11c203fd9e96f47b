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
// One fixed-size scratch buffer for strings that are not ASCII, so those allocate nothing either when short.
// It never grows: a string that might not fit (UTF-8 needs at most 3 bytes per UTF-16 unit) is encoded into
// a fresh array. Sharing it is safe because JavaScript runs this synchronous function to completion.
const SCRATCH = new Uint8Array(1024)
const SCRATCH_CHARS = SCRATCH.length / 3

function murmur3Utf8(text: string, seed: number): number {
  if (text.length <= SCRATCH_CHARS) {
    const { written } = encoder.encodeInto(text, SCRATCH)
    return murmur3Bytes(SCRATCH, written, seed)
  }
  return murmur3Bytes(encoder.encode(text), undefined, seed)
}

/** The hash state after some leading bytes: `h` over their whole 4-byte blocks, and the 0 to 3 bytes left
 *  over (little-endian in `pending`), so hashing can go on from there. */
export interface Murmur3Prefix {
  readonly text: string
  readonly seed: number
  readonly h: number
  readonly pending: number
  readonly pendingBytes: number
  /** the prefix's length in UTF-8 bytes */
  readonly length: number
}

/** The state after the UTF-8 bytes of `prefix` (computed once, e.g. per flag key at compile time). */
export function murmur3Prefix(prefix: string, seed = 0): Murmur3Prefix {
  const bytes = encoder.encode(prefix)
  const blocks = bytes.length & ~3
  let h = seed | 0
  for (let i = 0; i < blocks; i += 4) h = mixBlock(h, bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24))
  let pending = 0
  for (let i = blocks; i < bytes.length; i++) pending |= bytes[i]! << ((i - blocks) * 8)
  return { text: prefix, seed, h, pending, pendingBytes: bytes.length - blocks, length: bytes.length }
}

function mixBlock(h: number, k: number): number {
  k = Math.imul(k, C1)
  k = (k << 15) | (k >>> 17)
  k = Math.imul(k, C2)
  h ^= k
  h = (h << 13) | (h >>> 19)
  return (Math.imul(h, 5) + 0xe6546b64) | 0
}

const START = murmur3Prefix('')

/** MurmurHash3 x86 32-bit over the UTF-8 bytes of `text` (lone surrogates become U+FFFD, as TextEncoder does). */
export function murmur3(text: string, seed = 0): number {
  return murmur3After(seed === 0 ? START : murmur3Prefix('', seed), text)
}

/**
 * murmur3(prefix + text) without building that string. ASCII (ids, keys: nearly always) is its own UTF-8,
 * so it is hashed straight from the string's UTF-16 units, four at a time; building `key:id` and copying it
 * into bytes used to cost more than the hash itself. Anything else goes through TextEncoder.
 */
export function murmur3After(prefix: Murmur3Prefix, text: string): number {
  const n = text.length
  let h = prefix.h
  let k = prefix.pending
  let shift = prefix.pendingBytes * 8
  let i = 0
  if (shift !== 0) {
    // Complete the prefix's unfinished block.
    for (; shift < 32 && i < n; i++, shift += 8) {
      const c = text.charCodeAt(i)
      if (c > 0x7f) return murmur3Utf8(prefix.text + text, prefix.seed)
      k |= c << shift
    }
    if (shift === 32) {
      h = mixBlock(h, k)
      k = 0
      shift = 0
    }
  }
  if (shift === 0) {
    const end = i + ((n - i) & ~3)
    for (; i < end; i += 4) {
      const a = text.charCodeAt(i)
      const b = text.charCodeAt(i + 1)
      const c = text.charCodeAt(i + 2)
      const d = text.charCodeAt(i + 3)
      if ((a | b | c | d) > 0x7f) return murmur3Utf8(prefix.text + text, prefix.seed)
      k = a | (b << 8) | (c << 16) | (d << 24)
      k = Math.imul(k, C1)
      k = (k << 15) | (k >>> 17)
      k = Math.imul(k, C2)
      h ^= k
      h = (h << 13) | (h >>> 19)
      h = (Math.imul(h, 5) + 0xe6546b64) | 0
    }
    k = 0
    for (; i < n; i++, shift += 8) {
      const c = text.charCodeAt(i)
      if (c > 0x7f) return murmur3Utf8(prefix.text + text, prefix.seed)
      k |= c << shift
    }
  }
  // Tail: the last 1 to 3 bytes.
  if (shift !== 0) {
    k = Math.imul(k, C1)
    k = (k << 15) | (k >>> 17)
    k = Math.imul(k, C2)
    h ^= k
  }
  // Finalisation (fmix32).
  h ^= prefix.length + n
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}
