// Token permissions (spec: Authentication). Pure: shared with the console.
export const PERMISSIONS = ['read:flags', 'read:configs', 'write:flags', 'write:configs', '*'] as const
export type Permission = (typeof PERMISSIONS)[number]
