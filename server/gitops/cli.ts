#!/usr/bin/env bun
// The GitOps command line (docs/as-code.md §4): `npm run flagship -- <command>`, also the package's
// `flagship` bin. Talks to a running server with FLAGSHIP_URL and FLAGSHIP_TOKEN from the environment
// (never an argument, never written anywhere); `validate` and `convert` work offline. Exit codes: 0
// nothing to change (or valid, or a change request opened with --propose), 2 changes planned or applied
// (convert: converted with reported items; promote: also keys or --all missing), 1 error. `--json` prints
// machine-readable results.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import type { DocumentIssue } from '../documents/model'
import { serializeDocument } from '../documents/serialize'
import { validateDocument } from '../documents/validate'
import { readDocuments } from './files'
import { printPlan, type Io, type PlanAnswer } from './output'

export const USAGE = `usage: flagship <command> [options]     (FLAGSHIP_URL and FLAGSHIP_TOKEN from the environment)
  export [-o dir] [--format yaml|json]        write the project's document (stdout, or dir/flagship.<format>)
  validate -f path                            check files offline: schema, references, cycles, duplicates
  plan -f path [--prune]                      what apply would change (exit 2 when it would change something)
  apply -f path [--prune] [--plan-id id] [--propose [--title text]]
                                              apply in one transaction (exit 2 when it changed something);
                                              --propose: open a change request instead (protected environments)
  promote --from env --to env (keys... | --all) [--plan | --propose [--title text]]
                                              copy flags' and configs' overrides between environments;
                                              --plan: only print what would change (exit 2 when something would)
  convert --from unleash|flagd files... [-o out.yaml] [--report file]   another tool's export as our document (offline)
options: --json (machine-readable output), -h/--help (this text)
paths are files or directories of *.yaml, *.yml, *.json; exit codes: 0 nothing to change (or a change request
opened), 2 changes (promote without keys or --all: 2 too), 1 error`

const issueText = (i: DocumentIssue) =>
  `${i.file ? `${i.file}: ` : ''}${i.path || '(document)'}${i.line ? ` (line ${i.line})` : ''}: ${i.message}`

async function call(
  io: Io,
  method: string,
  path: string,
  opts: { body?: string; type?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; text: string; json: any }> {
  const url = io.env.FLAGSHIP_URL
  const token = io.env.FLAGSHIP_TOKEN
  if (!url || !token) throw new CliError('set FLAGSHIP_URL and FLAGSHIP_TOKEN in the environment')
  let res: Response
  try {
    res = await io.fetch(`${url.replace(/\/+$/, '')}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(opts.type && { 'content-type': opts.type }), ...opts.headers },
      body: opts.body,
    })
  } catch (e) {
    throw new CliError(`cannot reach ${url}: ${(e as Error).message}`)
  }
  const text = await res.text()
  let json: any
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  if (res.status >= 400) {
    const issues = (json?.details?.issues ?? []) as DocumentIssue[]
    throw new CliError(
      `${res.status} ${json?.code ?? ''}: ${json?.error ?? text}${issues.length ? `\n${issues.map(issueText).join('\n')}` : ''}`,
      json,
    )
  }
  return { status: res.status, text, json }
}

export class CliError extends Error {
  constructor(
    message: string,
    readonly body?: unknown,
  ) {
    super(message)
  }
}

export async function main(argv: string[], io: Io): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      file: { type: 'string', short: 'f' },
      output: { type: 'string', short: 'o' },
      format: { type: 'string' },
      prune: { type: 'boolean' },
      'plan-id': { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      report: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      propose: { type: 'boolean' },
      plan: { type: 'boolean' },
      all: { type: 'boolean' },
      title: { type: 'string' },
    },
  })
  const [command, ...rest] = positionals
  const json = values.json === true
  const fail = (message: string, body?: unknown) => {
    if (json) io.out(`${JSON.stringify({ error: message, ...(body !== undefined && { body }) })}\n`)
    else io.err(`error: ${message}\n`)
    return 1
  }
  if (values.help) return (io.out(`${USAGE}\n`), 0)
  if (!command) return (io.err(`${USAGE}\n`), 1)
  /** A change request opened (--propose): its id and address; exit 0 (nothing to apply here). */
  const proposed = (answer: PlanAnswer & { change_request?: { id: string } | null }) => {
    const cr = answer.change_request ?? null
    const address = cr && `${(io.env.FLAGSHIP_URL ?? '').replace(/\/+$/, '')}/changes/${cr.id}`
    if (json) io.out(`${JSON.stringify({ ...answer, ...(address && { address }) })}\n`)
    else {
      io.out(printPlan(answer, 'plan'))
      io.out(cr ? `change request ${cr.id} opened: ${address}\n` : 'nothing to change: no change request opened\n')
    }
    return 0
  }
  try {
    switch (command) {
      case 'export': {
        const format = values.format ?? (values.output ? 'yaml' : 'yaml')
        if (format !== 'yaml' && format !== 'json') return fail('--format is yaml or json')
        const { text } = await call(io, 'GET', `/api/v1/export?format=${format}`)
        if (!values.output) return (io.out(text), 0)
        mkdirSync(values.output, { recursive: true })
        const file = join(values.output, `flagship.${format}`)
        writeFileSync(file, text)
        if (json) io.out(`${JSON.stringify({ written: file })}\n`)
        else io.err(`wrote ${file}\n`)
        return 0
      }
      case 'validate':
      case 'plan':
      case 'apply': {
        if (!values.file) return fail(`${command} needs -f <file or directory>`)
        const read = readDocuments(values.file)
        const errors = read.errors.length ? read.errors : validateDocument(read.document!).map(read.locate)
        if (command === 'validate' || errors.length) {
          if (json) io.out(`${JSON.stringify({ valid: errors.length === 0, errors })}\n`)
          else if (errors.length) io.err(`${errors.map(issueText).join('\n')}\n`)
          else io.err('valid\n')
          return errors.length ? 1 : 0
        }
        const body = serializeDocument(read.document!, 'json')
        const mode = command === 'plan' ? 'plan' : 'apply'
        const propose = mode === 'apply' && values.propose === true
        const headers = values['plan-id'] ? { 'if-match': `"${values['plan-id']}"` } : undefined
        const title = propose && values.title ? `&title=${encodeURIComponent(values.title)}` : ''
        const answer = (
          await call(io, 'POST', `/api/v1/import?mode=${propose ? 'propose' : mode}&prune=${values.prune === true}${title}`, {
            body,
            type: 'application/json',
            ...(headers && { headers }),
          })
        ).json as PlanAnswer
        if (propose) return proposed(answer)
        answer.errors = answer.errors.map(read.locate)
        if (json) io.out(`${JSON.stringify(answer)}\n`)
        else io.out(printPlan(answer, mode))
        if (answer.errors.length) return 1
        return answer.changes.length ? 2 : 0
      }
      case 'promote': {
        if (!values.from || !values.to) return fail('promote needs --from <env> --to <env>')
        if (values.plan && values.propose) return fail('--plan and --propose do not go together')
        // Promoting everything is said out loud: no keys and no --all is refused (exit 2, nothing done).
        if (!rest.length && !values.all) {
          const message = 'promote needs the keys to promote, or --all to promote every flag and config'
          if (json) io.out(`${JSON.stringify({ error: message })}\n`)
          else io.err(`error: ${message}\n`)
          return 2
        }
        if (rest.length && values.all) return fail('name keys or give --all, not both')
        // Names may be flags or configs: the comparison of the two environments says which is which.
        let names = {}
        if (rest.length) {
          const c = (
            await call(io, 'GET', `/api/v1/environments/compare?a=${encodeURIComponent(values.from)}&b=${encodeURIComponent(values.to)}`)
          ).json as { flags?: { key: string }[]; configs?: { key: string }[] }
          const flags = new Set((c.flags ?? []).map((f) => f.key))
          const configs = new Set((c.configs ?? []).map((f) => f.key))
          const unknown = rest.filter((k) => !flags.has(k) && !configs.has(k))
          if (unknown.length) return fail(`no flag or config named ${unknown.join(', ')}`)
          const [f, cf] = [rest.filter((k) => flags.has(k)), rest.filter((k) => configs.has(k))]
          names = { ...(f.length && { flags: f }), ...(cf.length && { configs: cf }) }
        }
        const req = {
          from: values.from,
          to: values.to,
          ...names,
          ...(values.plan && { dry_run: true }),
          ...(values.propose && { propose: true, ...(values.title && { title: values.title }) }),
        }
        const answer = (await call(io, 'POST', '/api/v1/promote', { body: JSON.stringify(req), type: 'application/json' }))
          .json as PlanAnswer
        if (values.propose) return proposed(answer)
        if (json) io.out(`${JSON.stringify(answer)}\n`)
        else io.out(printPlan(answer, values.plan ? 'plan' : 'apply'))
        return answer.changes.length ? 2 : 0
      }
      case 'convert': {
        const { runConvert } = await import('./convert-command')
        return await runConvert(values.from, rest, { output: values.output, report: values.report, json }, io)
      }
      default:
        return fail(`unknown command "${command}"\n${USAGE}`)
    }
  } catch (e) {
    if (e instanceof CliError) return fail(e.message, e.body)
    throw e
  }
}

if (import.meta.main) {
  const io: Io = { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t), env: process.env, fetch }
  process.exitCode = await main(process.argv.slice(2), io).catch((e) => {
    process.stderr.write(`error: ${(e as Error).message}\n`)
    return 1
  })
}
