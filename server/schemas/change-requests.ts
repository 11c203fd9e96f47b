// Wire schemas of environment policies and change requests (docs/change-requests.md).
import { t } from 'elysia'
import { CHANGE_REQUEST_STATES, ITEM_ACTIONS, ITEM_RESOURCE_TYPES } from '../store/vocabulary/change-requests'
import { Dict, Json, Timestamp } from './common'

export const PolicyInput = t.Object(
  {
    protected: t.Boolean(),
    required_approvals: t.Integer({ minimum: 1, maximum: 5 }),
    approver_role: t.UnionEnum(['editor', 'admin']),
    allow_emergency_off: t.Optional(
      t.Boolean({ description: 'a change that only stops serving here applies without review (absent: unchanged; true by default)' }),
    ),
  },
  { title: 'EnvironmentPolicyInput', additionalProperties: false },
)

export const Policy = t.Object(
  {
    environment: t.String(),
    protected: t.Boolean(),
    required_approvals: t.Integer(),
    approver_role: t.UnionEnum(['editor', 'admin']),
    allow_emergency_off: t.Boolean(),
    updated_at: t.Nullable(Timestamp),
  },
  { title: 'EnvironmentPolicy' },
)

export const ChangeRequestItemInput = t.Object(
  {
    resource_type: t.UnionEnum([...ITEM_RESOURCE_TYPES]),
    key: t.String(),
    action: t.UnionEnum([...ITEM_ACTIONS]),
    body: t.Optional(
      Dict(
        t.Any(),
        'exactly what the direct route takes (POST /flags, PUT /flags/:key, PUT …/environments/:env, ' +
          'POST …/rollback `{ version }`, DELETE /segments ?force as `{ force }`)',
      ),
    ),
    environment: t.Optional(t.String({ description: 'set_override and delete_override only' })),
    base_version: t.Optional(
      t.Nullable(
        t.Number({
          minimum: 1,
          description:
            'an integer: ' + 'the version this item was written against (default: the current one); null: the resource must not exist',
        }),
      ),
    ),
  },
  { title: 'ChangeRequestItemInput', additionalProperties: false },
)

export const ChangeRequestCreate = t.Object(
  {
    title: t.String({ maxLength: 200 }),
    description: t.Optional(t.String({ maxLength: 10000 })),
    items: t.Array(ChangeRequestItemInput, { minItems: 1, maxItems: 100 }),
    apply_at: t.Optional(t.String({ description: 'ISO 8601 date-time with an offset: applied then, once approved' })),
  },
  { title: 'ChangeRequestCreate', additionalProperties: false },
)

export const ChangeRequestEdit = t.Object(
  {
    title: t.Optional(t.String({ maxLength: 200 })),
    description: t.Optional(t.String({ maxLength: 10000 })),
    items: t.Optional(t.Array(ChangeRequestItemInput, { minItems: 1, maxItems: 100 })),
    apply_at: t.Optional(t.Nullable(t.String())),
    revision: t.Integer({ description: 'the revision being edited (409 REVISION_MISMATCH otherwise)' }),
  },
  { title: 'ChangeRequestEdit', additionalProperties: false },
)

export const ReviewInput = t.Object(
  {
    decision: t.UnionEnum(['approve', 'reject', 'comment']),
    revision: t.Integer(),
    comment: t.Optional(t.Nullable(t.String({ maxLength: 5000 }))),
  },
  { title: 'ReviewInput', additionalProperties: false },
)

export const RevisionInput = t.Object({ revision: t.Integer() }, { title: 'RevisionInput', additionalProperties: false })

const Person = t.Object({ id: t.Nullable(t.String()), email: t.Nullable(t.String()), name: t.String() }, { title: 'Person' })

export const ChangeRequest = t.Object(
  {
    id: t.String(),
    title: t.String(),
    description: t.String(),
    author: Person,
    state: t.UnionEnum([...CHANGE_REQUEST_STATES]),
    revision: t.Integer(),
    items: t.Array(
      t.Object({
        resource_type: t.String(),
        key: t.String(),
        action: t.String(),
        body: t.Optional(Json),
        environment: t.Optional(t.String()),
        base_version: t.Nullable(t.Number({ description: 'an integer; null: created by the request' })),
        current_version: t.Nullable(t.Number({ description: 'an integer; null: does not exist' })),
        before: Json,
        after: Json,
      }),
    ),
    reviews: t.Array(
      t.Object({ reviewer: Person, decision: t.String(), revision: t.Integer(), comment: t.Nullable(t.String()), at: Timestamp }),
    ),
    approvals_required: t.Integer(),
    approvals: t.Integer({ description: 'approvals that count at the current revision' }),
    environments: t.Array(t.String(), { description: 'the protected environments it affects' }),
    apply_at: t.Nullable(Timestamp),
    applied_at: t.Nullable(Timestamp),
    approvers: t.Nullable(t.Array(Person, { description: 'the approvals counted when it was applied' })),
    error: t.Nullable(t.Object({ code: t.String(), message: t.String() })),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'ChangeRequest' },
)

export const UnreviewedChange = t.Object(
  {
    id: t.Integer(),
    timestamp: Timestamp,
    actor: t.String(),
    action: t.String(),
    resource_type: t.String(),
    resource_key: t.String(),
    reason: t.UnionEnum(['emergency_off', 'break_glass'], {
      description: 'emergency_off: it only stopped serving; break_glass: a project admin applied it with a reason',
    }),
    bypass_reason: t.Optional(t.String()),
  },
  { title: 'UnreviewedChange' },
)
