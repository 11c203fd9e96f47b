// Processes of the benchmarks: every child is stopped on exit, error, SIGINT/SIGTERM or when the watchdog
// bounds the whole run; pinning to CPUs; the run's knobs (environment).
import type { Subprocess } from 'bun'
import { readFileSync, rmSync } from 'node:fs'
import { cpus } from 'node:os'
import { join } from 'node:path'

export const ROOT = join(import.meta.dir, '..')
export const BUN = process.execPath
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32)
export const LARGE = Number(process.env.BENCH_FLAGS_LARGE ?? 10_000)
export const MAX_SECONDS = Number(process.env.BENCH_MAX_SECONDS ?? 1800)

// ---------------------------------------------------------------------------------------------------
// Processes, cleanup, time bound

export const children = new Set<Subprocess>()
export const tempDirs: string[] = []

export function cleanup(): void {
  for (const p of children) {
    if (p.exitCode === null && p.signalCode === null) {
      try {
        p.kill('SIGKILL')
      } catch {}
    }
  }
  children.clear()
  for (const d of tempDirs.splice(0)) rmSync(d, { recursive: true, force: true })
}
process.on('exit', cleanup)
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    console.error(`\n${signal}: stopping everything`)
    cleanup()
    process.exit(130)
  })
}
export const watchdog = setTimeout(() => {
  console.error(`\nbench exceeded ${MAX_SECONDS} s: stopping everything`)
  cleanup()
  process.exit(3)
}, MAX_SECONDS * 1000)

export const hasTaskset = Bun.which('taskset') !== null && cpus().length >= 2
export const pinned = (cpu: number, argv: string[]): string[] => (hasTaskset ? ['taskset', '-c', String(cpu), ...argv] : argv)
export const SERVER_CPU = 0
export const LOAD_CPU = 1

export function spawnTracked(argv: string[], env: Record<string, string | undefined> = {}): { proc: Subprocess; output: () => string } {
  const proc = Bun.spawn(argv, { cwd: ROOT, env: { ...process.env, ...env }, stdout: 'pipe', stderr: 'pipe' })
  children.add(proc)
  void proc.exited.then(() => children.delete(proc))
  let out = ''
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder()
    for await (const chunk of stream) {
      out += decoder.decode(chunk)
      if (out.length > 200_000) out = out.slice(-100_000)
    }
  }
  void pump(proc.stdout as ReadableStream<Uint8Array>)
  void pump(proc.stderr as ReadableStream<Uint8Array>)
  return { proc, output: () => out }
}

/** `promise`, or 'timeout' after `ms` (the timer is cleared, so it never keeps the process alive). */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const expired = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ms)))
  try {
    return await Promise.race([promise, expired])
  } finally {
    clearTimeout(timer)
  }
}

export async function stopProcess(proc: Subprocess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return
  proc.kill('SIGTERM')
  await within(proc.exited, 5000)
  if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL')
  await proc.exited
}

export async function waitForPort(name: string, proc: Subprocess, output: () => string, timeoutMs = 120_000): Promise<number> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const m = /"msg":"listening"[^\n]*"port":(\d+)/.exec(output())
    if (m) return Number(m[1])
    if (proc.exitCode !== null) throw new Error(`${name} exited with ${proc.exitCode}:\n${output()}`)
    if (Date.now() > deadline) throw new Error(`${name} did not start in time:\n${output()}`)
    await Bun.sleep(25)
  }
}

/** CPU time (user + system, ms) a process has used so far: unlike requests/s it hardly moves when other work
 *  on the machine takes the cores. */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10
}
