/**
 * Domain errors. Services throw these; one handler (http/errors.ts) renders them as the error body of
 * docs/decisions.md "Requests". Nothing here knows about HTTP beyond the status each type maps to.
 */
export type ErrorType =
  | 'validation_error'
  | 'invalid_request'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found'
  | 'method_not_allowed'
  | 'invalid_state'
  | 'resolution_not_applicable'
  | 'census_record_changed'
  | 'confirmation_required'
  | 'idempotency_error'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'throttled'
  | 'internal_error';

export const STATUS_OF: Record<ErrorType, number> = {
  validation_error: 400,
  invalid_request: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found: 404,
  method_not_allowed: 405,
  invalid_state: 409,
  resolution_not_applicable: 409,
  census_record_changed: 409,
  confirmation_required: 409,
  idempotency_error: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  throttled: 429,
  internal_error: 500,
};

export interface InputError {
  field: string;
  field_path: string[];
  message: string;
}

export class AppError extends Error {
  override name = 'AppError';
  readonly type: ErrorType;
  readonly inputErrors: InputError[] | undefined;
  readonly headers: Record<string, string> | undefined;
  constructor(type: ErrorType, message: string, options: { inputErrors?: InputError[]; headers?: Record<string, string> } = {}) {
    super(message);
    this.type = type;
    this.inputErrors = options.inputErrors;
    this.headers = options.headers;
  }
  get statusCode(): number {
    return STATUS_OF[this.type];
  }
}

/** An input error for a field path such as ['enrolled_plans', '0', 'plan']. */
export function inputError(fieldPath: (string | number)[], message: string): InputError {
  const path = fieldPath.map(String);
  return { field: path.at(-1) ?? '', field_path: path, message };
}

export class ValidationFailed extends AppError {
  constructor(inputErrors: InputError[], message = 'Invalid data passed for fields') {
    super('validation_error', message, { inputErrors });
  }
}

export function validationFailed(fieldPath: (string | number)[], message: string): ValidationFailed {
  return new ValidationFailed([inputError(fieldPath, message)]);
}

export class NotFound extends AppError {
  constructor(what = 'record') {
    super('not_found', `No such ${what}.`);
  }
}

export class InvalidState extends AppError {
  constructor(message: string) {
    super('invalid_state', message);
  }
}

/**
 * Another transaction changed the same records at the same moment and the database gave up on this one (a
 * deadlock or a serialization failure), even after one retry: nothing of the request took effect, and sending
 * it again is safe. A 409 `invalid_state`, the type of "the record's state does not allow the action now"; never
 * kept for an Idempotency-Key, so that a retry with the same key runs again (docs/decisions.md "Two changes to
 * one enrollment at once").
 */
export class ConcurrentChange extends InvalidState {
  constructor() {
    super('Another change to the same records was being made at the same time, so this one was not applied. Nothing changed: send the request again.');
  }
}

/**
 * A carrier file's discrepancy cannot be resolved the way asked (docs/decisions.md "Carrier files", Resolving
 * discrepancies): a 409 `resolution_not_applicable`, whose message says why and what to do instead.
 */
export class ResolutionNotApplicable extends AppError {
  constructor(message: string) {
    super('resolution_not_applicable', message);
  }
}

export class PermissionDenied extends AppError {
  constructor(message = 'This API key may not perform this action.') {
    super('permission_error', message);
  }
}

export class InvalidRequest extends AppError {
  constructor(message: string) {
    super('invalid_request', message);
  }
}
