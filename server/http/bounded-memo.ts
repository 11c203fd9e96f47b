// A memo for per-request lookups keyed by client-sent text (Authorization headers, `?context=` values):
// bounded in entries and key length, so a client cannot grow it without limit. Past the bound it starts
// over, which costs only recomputation; keys over the length limit are never remembered.
export class BoundedMemo<V> {
  private entries = new Map<string, V>()

  constructor(
    private readonly maxEntries: number,
    private readonly maxKeyLength: number,
  ) {}

  get(key: string): V | undefined {
    return this.entries.get(key)
  }

  set(key: string, value: V): void {
    if (key.length > this.maxKeyLength) return
    if (this.entries.size >= this.maxEntries) this.entries.clear()
    this.entries.set(key, value)
  }

  clear(): void {
    this.entries.clear()
  }
}
