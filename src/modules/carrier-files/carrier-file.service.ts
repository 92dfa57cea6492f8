import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { Clock } from '../../shared/clock.ts';
import { toDateString } from '../../shared/dates.ts';
import { NotFound } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import type { SsnDigester } from '../../shared/ssn.ts';
import type { Scope } from '../../shared/tenancy.ts';
import { findGroupLinesOn } from '../coverage/group-coverage.repository.ts';
import type { ChangeCommit } from '../change-commit/change-commit.ts';
import { findProfile } from '../edi/edi-profile.repository.ts';
import { eventOf } from '../events/event-data.ts';
import { companionGuideOf } from '../edi/edi-profile.ts';
import { findGroupById } from '../groups/group.repository.ts';
import type { DependentRelationship } from '../plans/coverage-tier.ts';
import { findPlansByIds } from '../plans/plan.repository.ts';
import { toldEnd } from '../reconciliation/reconciliation-rules.ts';
import { parse834 } from './carrier-834.ts';
import { parseCensus } from './carrier-census.ts';
import {
  memberDiscrepancies,
  unknownSubscriberDiscrepancy,
  type CarrierFileDiscrepancy,
  type CarrierValues,
  type OurLine,
  type OurMember,
} from './carrier-file-rules.ts';
import * as repository from './carrier-file.repository.ts';
import { matchSubscribers } from './subscriber-matching.ts';
import type { CreateCarrierFileBody, CarrierFileResponse } from './carrier-file.schemas.ts';
import type { CarrierFileResolutionRow, CarrierFileRow } from './carrier-file.table.ts';

type DiscrepancyResponse = CarrierFileResponse['discrepancies'][number];

function carrierValuesResponse(values: CarrierValues | undefined): DiscrepancyResponse['carrier'] {
  if (values === undefined) return null;
  if ('firstName' in values) return { first_name: values.firstName, last_name: values.lastName, dob: values.dob };
  return {
    plan: values.plan,
    coverage_start: values.coverageStart,
    coverage_end: values.coverageEnd,
    coverage_level: values.coverageLevels === null ? null : [...values.coverageLevels],
    dependents: values.dependents.map((person) => ({
      relationship: person.relationship,
      first_name: person.firstName,
      last_name: person.lastName,
      dob: person.dob,
    })),
  };
}

function resolutionResponse(row: CarrierFileResolutionRow | undefined): DiscrepancyResponse['resolution'] {
  if (row === undefined) return null;
  return {
    action: row.action,
    resolved_at: row.resolved_at,
    resolved_by: row.resolved_by,
    note: row.note,
    benefit_changes: JSON.parse(row.benefit_change_ids) as string[],
    fields_changed: JSON.parse(row.fields_changed) as string[],
  };
}

export function toCarrierFileResponse(row: CarrierFileRow, resolutions: readonly CarrierFileResolutionRow[] = []): CarrierFileResponse {
  const discrepancies = JSON.parse(row.discrepancies) as CarrierFileDiscrepancy[];
  const resolutionOf = new Map(resolutions.map((resolution) => [resolution.discrepancy_index, resolution]));
  return {
    id: row.id,
    object: 'carrier_file',
    group: row.group_id,
    employer: row.employer_id,
    format: row.format,
    as_of: row.as_of,
    row_count: row.row_count,
    row_problems: JSON.parse(row.row_problems) as CarrierFileResponse['row_problems'],
    discrepancies: discrepancies.map((d, index) => ({
      index,
      kind: d.kind,
      member: d.member,
      dependent: d.dependent,
      line_of_coverage: d.lineOfCoverage,
      fields: d.fields,
      file_lines: d.fileLines,
      message: d.message,
      carrier: carrierValuesResponse(d.carrier),
      resolution: resolutionResponse(resolutionOf.get(index)),
    })),
    created_at: row.created_at,
  };
}

/**
 * POST /groups/{id}/carrier_files (docs/decisions.md "Carrier files"): what a carrier says it holds (a CSV census
 * or an 834, read into the same rows), compared
 * with our coverage on the group's plans on a day. Members are found by the subscriber id the group's 834s send
 * (its EDI profile's source; the member id without a profile). The comparison is stored without the file.
 */
export class CarrierFileService {
  readonly #db: Kysely<Database>;
  readonly #clock: Clock;
  readonly #ssnDigester: SsnDigester;
  readonly #changes: ChangeCommit;

  constructor(options: { db: Kysely<Database>; clock: Clock; ssnDigester: SsnDigester; changes: ChangeCommit }) {
    this.#db = options.db;
    this.#clock = options.clock;
    this.#ssnDigester = options.ssnDigester;
    this.#changes = options.changes;
  }

  async getCarrierFile(scope: Scope, id: string): Promise<CarrierFileResponse> {
    const row = await repository.findCarrierFileById(this.#db, scope, id);
    if (!row) throw new NotFound('carrier file');
    return toCarrierFileResponse(row, await repository.findResolutions(this.#db, row.id));
  }

  async receiveCarrierFile(scope: Scope, groupId: string, input: CreateCarrierFileBody): Promise<CarrierFileResponse> {
    const group = await findGroupById(this.#db, scope, groupId);
    if (!group) throw new NotFound('group');
    const now = this.#clock.now();
    const asOf = input.as_of ?? toDateString(now);
    const profile = await findProfile(this.#db, group.id);
    const guide = profile ? companionGuideOf(profile) : undefined;
    const { rows, problems } = input.format === 'csv' ? parseCensus(input.content) : parse834(input.content, guide);
    const subscribers = await matchSubscribers(
      this.#db,
      this.#ssnDigester,
      group.employer_id,
      guide?.subscriber_id_source ?? 'member_id',
      rows.map((row) => row.subscriberId),
    );
    const ours = await this.#ourMembers(group.provider_id, group.id, asOf, [...subscribers.values()]);

    const rowsOfMember = Map.groupBy(
      rows.filter((row) => subscribers.has(row.subscriberId)),
      (row) => subscribers.get(row.subscriberId)!,
    );
    const discrepancies: CarrierFileDiscrepancy[] = [];
    for (const member of [...ours.values()].sort((a, b) => (a.id < b.id ? -1 : 1)))
      discrepancies.push(...memberDiscrepancies(member, rowsOfMember.get(member.id) ?? []));
    for (const unknown of Map.groupBy(
      rows.filter((row) => !subscribers.has(row.subscriberId)),
      (row) => row.subscriberId,
    ).values())
      discrepancies.push(unknownSubscriberDiscrepancy(unknown));

    const row: CarrierFileRow = {
      id: newId('carrier_file'),
      provider_id: group.provider_id,
      employer_id: group.employer_id,
      group_id: group.id,
      format: input.format,
      as_of: asOf,
      row_count: rows.length + problems.length,
      row_problems: JSON.stringify(problems),
      discrepancies: JSON.stringify(discrepancies),
      created_at: now.toISOString(),
    };
    await this.#db.transaction().execute(async (trx) => {
      await repository.insertCarrierFile(trx, row);
      await this.#changes.commit(trx, { events: [eventOf('carrier_file', 'created', row)] });
    });
    return toCarrierFileResponse(row);
  }

  /** Our side: the members of the file and every member covered on the group's plans on `asOf`, with their coverage then. */
  async #ourMembers(providerId: string, groupId: string, asOf: string, inFile: readonly string[]): Promise<Map<string, OurMember>> {
    const firstPerLine = await findGroupLinesOn(this.#db, providerId, groupId, asOf, undefined);
    const plans = new Map((await findPlansByIds(this.#db, providerId, [...new Set(firstPerLine.map((row) => row.plan_id))])).map((plan) => [plan.id, plan]));
    const memberIds = [...new Set([...inFile, ...firstPerLine.map((row) => row.member_id)])];
    const people = await repository.findPeopleOfMembers(this.#db, memberIds);
    const dependents = Map.groupBy(people.dependents, (dependent) => dependent.member_id);
    const lines = Map.groupBy(firstPerLine, (row) => row.member_id);
    return new Map(
      people.members.map((member) => [
        member.id,
        {
          id: member.id,
          firstName: member.first_name,
          lastName: member.last_name,
          dob: member.dob,
          dependents: (dependents.get(member.id) ?? []).map((dependent) => ({
            id: dependent.id,
            firstName: dependent.first_name,
            lastName: dependent.last_name,
            dob: dependent.dob,
            relationship: dependent.member_relationship as DependentRelationship,
          })),
          lines: (lines.get(member.id) ?? []).map((row): OurLine => ({
            lineOfCoverage: row.line_of_coverage,
            planId: row.plan_id,
            planName: plans.get(row.plan_id)?.plan_name ?? row.plan_id,
            start: row.effective_start,
            end: toldEnd(row.effective_end, row.plan_end),
            planEnd: row.plan_end,
            dependentIds: row.dependent_ids,
          })),
        },
      ]),
    );
  }
}
