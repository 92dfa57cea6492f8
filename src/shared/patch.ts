/**
 * PATCH semantics for columns a request sets as they are: a field left out keeps its current value, a field
 * given replaces it (null included, which clears a nullable field). Fields that need converting (JSON,
 * references, merged metadata) are applied by the caller.
 */
export function applyChanges<Row extends object, Field extends keyof Row>(
  current: Row,
  input: { readonly [Key in NoInfer<Field>]?: Row[Key] | undefined },
  fields: readonly Field[],
): Row {
  const next = { ...current };
  for (const field of fields) {
    const value = input[field];
    if (value !== undefined) next[field] = value;
  }
  return next;
}
