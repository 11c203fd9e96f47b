// A child process the suites start and wait for: its output (stdout and stderr together) is captured, and it
// counts as started once a line matches `ready`. The one way the helpers start the service, the single
// binary and the OpenID provider.
import type { Subprocess } from 'bun'

export interface Started {
  proc: Subprocess
  /** what `ready` matched */
  match: RegExpExecArray
  /** everything the process has printed so far */
  output(): string
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it has exited */
  stop(graceMs?: number): Promise<void>
}

export async function startProcess(
  what: string,
  argv: string[],
  opts: { cwd?: string; env: Record<string, string | undefined>; ready: RegExp; timeoutMs: number },
): Promise<Started> {
  const proc = Bun.spawn(argv, { cwd: opts.cwd, env: opts.env, stdout: 'pipe', stderr: 'pipe' })
  let out = ''
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder()
    for await (const chunk of stream) out += decoder.decode(chunk)
  }
  void pump(proc.stdout as ReadableStream<Uint8Array>)
  void pump(proc.stderr as ReadableStream<Uint8Array>)
  const deadline = Date.now() + opts.timeoutMs
  let match: RegExpExecArray | null = null
  while (!(match = opts.ready.exec(out))) {
    if (proc.exitCode !== null) throw new Error(`${what} exited with ${proc.exitCode}:\n${out}`)
    if (Date.now() > deadline) {
      proc.kill('SIGKILL')
      throw new Error(`${what} did not start in time:\n${out}`)
    }
    await Bun.sleep(10)
  }
  return {
    proc,
    match,
    output: () => out,
    async stop(graceMs = 5000) {
      if (proc.exitCode !== null) return
      proc.kill('SIGTERM')
      await Promise.race([proc.exited, Bun.sleep(graceMs)])
      if (proc.exitCode === null) proc.kill('SIGKILL')
      await proc.exited
    },
  }
}
