// Where a sign-in may send the browser afterwards: only a path on this service. One implementation for
// every sign-in method (it lives with the OpenID Connect code, which needed it first).
export { safeReturnTo } from './oidc-return-to'
