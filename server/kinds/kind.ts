// What a kind of versioned document is (flags, configs, segments): the one definition everything generic
// takes. The service (services/versioned-documents.ts), its routes (http/routes/versioned-document-routes.ts),
// change-request items (services/document-ops.ts), the store's repository (typed by the kind's Body), the
// as-code document and its plan/apply all read a kind from here. Pure: types, names and schemas only.
import { t, type Static, type TSchema } from 'elysia'
import type { ValidationIssue } from '../engine/types'
import type { ItemAction } from '../store/vocabulary/change-requests'
import type { DocumentType } from '../store/vocabulary/changes'
import type { Permission } from '../store/vocabulary/permissions'

/** A stored document as the store gives it back: the kind's body, typed, with its key and version. */
export interface StoredDocument<Body extends object = object> {
  projectId: string
  key: string
  body: Body
  version: number
  createdAt: string
  updatedAt: string
}

/** The schemas of a kind's wire forms (server/schemas): its view, what create and update take, and one
 *  environment's override for the kinds that have them. */
export interface KindSchemas {
  view: TSchema
  create: TSchema
  patch: TSchema
  override?: TSchema
}

export type ItemBodies = Partial<Record<ItemAction, TSchema>>

export interface DocumentKind<
  Type extends DocumentType = DocumentType,
  Body extends object = object,
  Schemas extends KindSchemas = KindSchemas,
  Items extends ItemBodies = ItemBodies,
> {
  /** the resource type (audit, events, change-request items): `flag`; also the field of the answers that
   *  holds the document: `{ key, flag }` */
  type: Type
  /** in paths (/api/v1/flags), OpenAPI tags and the as-code document's sections */
  plural: `${Type}s`
  /** as it appears in messages: `Flag "x" not found` */
  label: string
  /** the 404 code: FLAG_NOT_FOUND */
  notFoundCode: string
  read: Permission
  write: Permission
  schemas: Schemas
  /** the wire form (answers, audit `before`/`after`) */
  view(row: StoredDocument<Body>): Static<Schemas['view']>
  /** the `data` of its webhook events */
  eventData(row: StoredDocument<Body>): Record<string, unknown>
  /** its entry in the as-code document (docs/as-code.md): a resource as POST takes it */
  entry: {
    /** the entry's fields in their written order */
    fields: readonly string[]
    /** the stored body an entry creates: what POST makes of it (its defaults); what it refuses goes to `issues` */
    toBody(entry: { key: string }, issues: ValidationIssue[]): DocumentBody
    /** a stored body in document form, with its key, without what is not the resource's content */
    of(key: string, body: DocumentBody): DocumentBody
  }
  /** the body each change-request action takes (docs/change-requests.md §2): exactly the direct route's */
  items: Items
}

/** A body as the as-code document holds it: a JSON object, checked as its kind's once the document is
 *  validated (documents/validate.ts). */
export type DocumentBody = Record<string, unknown>

/** The stored body of a kind. */
export type BodyOf<K> = K extends DocumentKind<DocumentType, infer Body> ? Body : never

/** The item body of the actions that take none. */
export const Empty = t.Object({})
