// The console's reads: queryOptions factories per resource (documents.ts, admin.ts, insight.ts) and the hooks pages
// share (hooks.ts).
export { flagQueries, filteredFlagQueries, configQueries, segmentQueries, type DocumentQueries, type ReadOptions } from './documents'
export { sessionQueries, adminQueries } from './admin'
export { isNotFound, useResource, usePagedList, type PagedList } from './hooks'
export { usageQueries, staleQueries, scheduleQueries } from './insight'
