import { ValidationFailed, inputError, type InputError } from './errors.ts';

/** The contract's limits on metadata (docs/api.md, `metadata` of every create body). */
export const METADATA_LIMITS = { pairs: 50, keyLength: 40, valueLength: 500 } as const;

export type Metadata = Record<string, string>;

/**
 * Checks metadata as supplied in a request. The schema already bounds sizes; this names the offending key in
 * `input_errors` for every rule (the schema cannot word a message per key) and is the single source of the
 * rules for services.
 */
export function metadataErrors(metadata: Record<string, unknown>, fieldPath: string[] = ['metadata']): InputError[] {
  const errors: InputError[] = [];
  const keys = Object.keys(metadata);
  for (const key of keys) {
    const value = metadata[key];
    if (key.length === 0) errors.push(inputError([...fieldPath, key], 'Metadata keys may not be empty.'));
    if (key.length > METADATA_LIMITS.keyLength) {
      errors.push(inputError([...fieldPath, key], `Metadata keys have at most ${METADATA_LIMITS.keyLength} characters.`));
    }
    if (typeof value !== 'string') {
      errors.push(inputError([...fieldPath, key], 'Metadata values must be strings.'));
    } else if (value.length > METADATA_LIMITS.valueLength) {
      errors.push(inputError([...fieldPath, key], `Metadata values have at most ${METADATA_LIMITS.valueLength} characters.`));
    }
  }
  return errors;
}

/**
 * The metadata a record ends up with: `update` merged into `current` (supplied keys overwrite, `""` removes,
 * absent keys stay). On create, `current` is `{}`. Throws when the result would exceed 50 pairs.
 */
export function mergeMetadata(current: Metadata, update: Record<string, string> | undefined, fieldPath = ['metadata']): Metadata {
  if (update === undefined) return current;
  const errors = metadataErrors(update, fieldPath);
  if (errors.length > 0) throw new ValidationFailed(errors);
  const merged: Metadata = { ...current };
  for (const [key, value] of Object.entries(update)) {
    if (value === '') delete merged[key];
    else merged[key] = value;
  }
  if (Object.keys(merged).length > METADATA_LIMITS.pairs) {
    throw new ValidationFailed([inputError(fieldPath, `Metadata holds at most ${METADATA_LIMITS.pairs} key-value pairs.`)]);
  }
  return merged;
}

export function parseMetadata(json: string): Metadata {
  return JSON.parse(json) as Metadata;
}
