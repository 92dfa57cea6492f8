import { PermissionDenied } from './errors.ts';
import type { ApiKeyRole } from '../modules/api-keys/api-key.table.ts';

/** Who is calling: resolved from the API key on every request (README.md "Using the API"; docs/decisions.md "Tenancy and roles"). */
export interface AuthContext {
  readonly apiKeyId: string;
  readonly providerId: string;
  readonly role: ApiKeyRole;
  /** Set for `employer` keys (and optionally `read_only` ones): the one employer they may see. */
  readonly employerId: string | null;
}

/** The rows a caller may see: always one provider, sometimes one employer within it. */
export interface Scope {
  readonly providerId: string;
  readonly employerId: string | null;
}

export function scopeOf(auth: AuthContext): Scope {
  return { providerId: auth.providerId, employerId: auth.employerId };
}

export function assertCanWrite(auth: AuthContext): void {
  if (auth.role === 'read_only') throw new PermissionDenied('This API key is read-only.');
}

export function assertAdmin(auth: AuthContext): void {
  if (auth.role !== 'admin') throw new PermissionDenied('Only admin API keys may do this.');
}

/** Provider-wide records (carriers, employers) are created and changed only by admin keys. */
export function assertProviderWideWrite(auth: AuthContext): void {
  assertCanWrite(auth);
  if (auth.employerId !== null) throw new PermissionDenied('Employer API keys may not change provider-wide records.');
}
