// Who is acting: what authorization (authorize.ts) makes of a caller and every service records in audit
// entries (services/context.ts `by`). Here, below services/, so access/ need not import them.
import type { ChangeAuthority } from '../store/vocabulary/change-requests'

/** The caller: its project and the name that goes into audit entries (the token prefix, `cli`, or a
 *  person's email), what kind of caller it is and, for a person, the credential used. */
export interface Actor {
  projectId: string
  name: string
  /** the hash of the caller's token (absent for the CLI and schedules): what its schedules are filed under */
  tokenHash?: string
  /** what lets its changes touch a protected environment (a break-glass reason, an approved request) */
  authority?: ChangeAuthority
  /** `user`, `token`, `cli`, `schedule` or `change_request`; inferred from the name when absent */
  type?: string
  /** a person's: `session` or their personal token's prefix */
  credential?: string | null
}
