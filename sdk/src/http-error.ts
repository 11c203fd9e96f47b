// A non-2xx answer from the service, with its status: readiness.ts tells the answers retrying cannot fix
// (401, 403, 404, a refused context) from the rest by it.
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}
