// Polls `fn` every `every` ms until it answers something truthy, or fails naming `what` after `ms`. The one
// way the suites wait for something asynchronous (a delivery, a schedule, a metric) instead of sleeping.
export async function until<T>(
  what: string,
  fn: () => Promise<T | undefined | false> | T | undefined | false,
  ms = 15_000,
  every = 25,
): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const v = await fn()
    if (v) return v
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(every)
  }
}
