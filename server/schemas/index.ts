// Wire schemas: the one source for request validation, response shapes, the OpenAPI document, the fields
// the services merge on update (FLAG_FIELDS) and (as `Static` types) the console's view of the API. Pure:
// imports only Elysia's schema builder and pure modules, so the services, the HTTP layer and the console's
// TypeScript project (web/tsconfig.json) all read it. One file per area; this one is what everyone imports.
export * from './common'
export * from './flag'
export * from './schedule'
export * from './usage'
export * from './evaluation'
export * from './admin'
export * from './teams'
export * from './change-requests'
export * from './experiments'
export * from './release-plans'
