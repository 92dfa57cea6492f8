/**
 * Who a carrier's subscriber id is (docs/decisions.md "Carrier files", Who is who): the id the group's 834s send
 * as REF*0F (its EDI profile's `subscriber_id_source`; the member id without a profile). Carrier files and premium
 * bills (premium-bills/) read the same ids, so they find members here, one way.
 */
import type { Executor } from '../../db/database.ts';
import type { SsnDigester } from '../../shared/ssn.ts';
import type { CompanionGuide } from '../edi/edi-profile.ts';
import { findMembersBy } from './carrier-file.repository.ts';

export type SubscriberIdSource = CompanionGuide['subscriber_id_source'];

/**
 * Subscriber id -> member id, for the employer's members, by `source`. SSNs are found by their keyed digest and
 * never stored; a member without one is sent (and so echoed) by member id, so member ids are matched too.
 */
export async function matchSubscribers(
  db: Executor,
  ssnDigester: SsnDigester,
  employerId: string,
  source: SubscriberIdSource,
  subscriberIds: Iterable<string>,
): Promise<Map<string, string>> {
  const ids = [...new Set(subscriberIds)];
  if (source === 'member_id') return findMembersBy(db, employerId, 'id', ids);
  if (source === 'payroll_provider_external_id') return findMembersBy(db, employerId, 'payroll_provider_external_id', ids);
  const digests = new Map(ids.filter((id) => /^[0-9]{9}$/.test(id)).map((id) => [ssnDigester.digest(id), id]));
  const bySsn = await findMembersBy(db, employerId, 'ssn_digest', [...digests.keys()]);
  const byId = await findMembersBy(db, employerId, 'id', ids);
  return new Map([...byId, ...[...bySsn].map(([digest, memberId]) => [digests.get(digest)!, memberId] as const)]);
}
