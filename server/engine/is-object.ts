// The one test for "a JSON object" (not null, not an array) that the engine, the document parsers, the
// services and the SDK share: a map of fields, as opposed to a list or a scalar.

export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
}
