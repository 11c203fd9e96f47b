// Between stored bodies and document entries: each kind's conversions (kinds/: `entry`), looked up by the
// document's section. An entry is a resource as the API takes it on create; its stored body is what create
// makes of it. A stored body's entry is the body with its key, without what is not the resource's content
// (a flag's archive time). Pure.
import type { ValidationIssue } from '../engine'
import { KIND_OF_PLURAL, type DocumentBody, type DocumentKind } from '../kinds'
import type { Kind } from './model'

/** A section's kind; its entries and bodies are the document's JSON objects here. */
const kindOf = (kind: Kind): DocumentKind => KIND_OF_PLURAL[kind]

/** The body an entry of `kind` stores. */
export const bodyOf = (kind: Kind, entry: { key: string }, issues: ValidationIssue[] = []): DocumentBody =>
  kindOf(kind).entry.toBody(entry, issues)

/** A stored body in document form (with its key). */
export const entryOf = (kind: Kind, key: string, body: DocumentBody): DocumentBody => kindOf(kind).entry.of(key, body)
