// Token permissions (spec: Authentication). Pure: shared with the console.
// `client`: a client key (evaluation only, client_side flags and configs only; access/client-keys.ts).
export const PERMISSIONS = ['read:flags', 'read:configs', 'write:flags', 'write:configs', '*', 'client'] as const
export type Permission = (typeof PERMISSIONS)[number]
