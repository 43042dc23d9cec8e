/**
 * The spec's envelope (conventions, 3): `meta` (empty in every shape), side-loaded collections under
 * `linked` when there are any, and the records, one-element for a single resource, under their key.
 */
export function envelope<K extends string, T>(
  key: K,
  records: T[],
  linked?: Record<string, unknown[]>,
): { meta: Record<string, never>; linked?: Record<string, unknown[]> } & Record<K, T[]> {
  return { meta: {}, ...(linked ? { linked } : {}), [key]: records } as { meta: Record<string, never>; linked?: Record<string, unknown[]> } & Record<K, T[]>;
}
