/**
 * POST /carrier_files/{id}/resolutions (docs/decisions.md "Carrier files", Resolving discrepancies): an admin
 * resolves one discrepancy of a carrier file, once. `resend` tells the carrier our truth again: a benefit change
 * through the coverage module's recorder (CoverageRetelling), or, for demographics, a mark that makes the
 * group's next 834 change file send the person's demographic maintenance. `accept_carrier_value` takes the
 * carrier's demographics as ours, through the member or dependent update the API uses. Each resolution is
 * audited (carrier_file_resolutions, unique per discrepancy) and announced (`carrier_file.discrepancy_resolved`)
 * in the transaction of its effect. The member is locked first (the documented lock order), so two resolutions
 * of one member's discrepancies run one after the other and the second sees the first's row; the unique index
 * answers the rest.
 */
import type { Kysely } from 'kysely';
import { isUniqueViolation, type Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import type { Clock } from '../../shared/clock.ts';
import { InvalidState, NotFound, ResolutionNotApplicable, ValidationFailed, validationFailed } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import type { Scope } from '../../shared/tenancy.ts';
import type { ChangeKind } from '../benefit-changes/benefit-change.table.ts';
import type { ChangeCommit } from '../change-commit/change-commit.ts';
import type { Retell } from '../coverage/coverage-change-recorder.ts';
import { markDemographicsToResend } from '../edi/edi-file-content.repository.ts';
import { eventOf } from '../events/event-data.ts';
import { lockMemberById } from '../members/member.repository.ts';
import type { CarrierFileDiscrepancy, CarrierFileDiscrepancyKind } from './carrier-file-rules.ts';
import * as repository from './carrier-file.repository.ts';
import type { CarrierFileResponse, ResolveDiscrepancyBody } from './carrier-file.schemas.ts';
import { toCarrierFileResponse } from './carrier-file.service.ts';
import type { CarrierFileResolutionRow, CarrierFileRow, ResolutionOutcome } from './carrier-file.table.ts';

/** Telling a carrier again (the coverage module's CoverageChangeRecorder.retell): the benefit changes' ids, or undefined when nothing of ours describes it. */
export interface CoverageRetelling {
  retell(trx: Transaction<Database>, input: Retell): Promise<string[] | undefined>;
}

type DemographicsInput = { first_name?: string; last_name?: string; dob?: string };

/** The member and dependent updates of the API (PATCH), in the caller's transaction. */
export interface PeopleUpdates {
  updateMemberIn(trx: Transaction<Database>, scope: Scope, id: string, input: DemographicsInput): Promise<unknown>;
  updateDependentIn(trx: Transaction<Database>, scope: Scope, id: string, input: DemographicsInput): Promise<unknown>;
}

/** How a resend tells each coverage kind again (retell-rules.ts), and what the change names as differing. */
const RESENDS: Record<Exclude<CarrierFileDiscrepancyKind, 'demographics'>, Pick<Retell, 'kind' | 'differs'>> = {
  missing: { kind: 'add', differs: [] },
  extra: { kind: 'end', differs: [] },
  plan: { kind: 'correct', differs: ['plan_change'] satisfies ChangeKind[] },
  dates: { kind: 'correct', differs: ['date_change'] satisfies ChangeKind[] },
  dependents: { kind: 'correct', differs: ['dependent_change'] satisfies ChangeKind[] },
  // The tier follows from the dependents covered: what the carrier must hear is who is covered.
  tier: { kind: 'correct', differs: ['dependent_change'] satisfies ChangeKind[] },
};

const ALREADY_RESOLVED =
  'This discrepancy is resolved already (see its resolution): a discrepancy is resolved once. Compare a new file to see what still differs.';

interface Effect {
  outcome: ResolutionOutcome;
  benefitChangeIds: string[];
  fieldsChanged: string[];
}

export class CarrierFileResolutions {
  readonly #db: Kysely<Database>;
  readonly #clock: Clock;
  readonly #changes: ChangeCommit;
  readonly #retelling: CoverageRetelling;
  readonly #people: PeopleUpdates;

  constructor(options: { db: Kysely<Database>; clock: Clock; changes: ChangeCommit; retelling: CoverageRetelling; people: PeopleUpdates }) {
    this.#db = options.db;
    this.#clock = options.clock;
    this.#changes = options.changes;
    this.#retelling = options.retelling;
    this.#people = options.people;
  }

  async resolve(scope: Scope, apiKeyId: string, carrierFileId: string, input: ResolveDiscrepancyBody): Promise<CarrierFileResponse> {
    try {
      return await this.#db.transaction().execute(async (trx) => {
        const file = await repository.findCarrierFileById(trx, scope, carrierFileId);
        if (!file) throw new NotFound('carrier file');
        const discrepancies = JSON.parse(file.discrepancies) as CarrierFileDiscrepancy[];
        const discrepancy = discrepancies[input.discrepancy];
        if (discrepancy === undefined) {
          throw validationFailed(['discrepancy'], `No such discrepancy: this carrier file has ${discrepancies.length}, indexed from 0.`);
        }
        if (discrepancy.member !== null && !(await lockMemberById(trx, scope, discrepancy.member))) {
          throw new ResolutionNotApplicable('The member of this discrepancy no longer exists: there is nothing of ours to resend or correct.');
        }
        const resolutions = await repository.findResolutions(trx, file.id);
        if (resolutions.some((resolution) => resolution.discrepancy_index === input.discrepancy)) throw new InvalidState(ALREADY_RESOLVED);
        const effect = input.action === 'resend' ? await this.#resend(trx, file, discrepancy) : await this.#accept(trx, scope, discrepancy);
        const row: CarrierFileResolutionRow = {
          id: newId('carrier_file_resolution'),
          provider_id: file.provider_id,
          employer_id: file.employer_id,
          carrier_file_id: file.id,
          discrepancy_index: input.discrepancy,
          action: input.action,
          outcome: effect.outcome,
          note: input.note ?? null,
          benefit_change_ids: JSON.stringify(effect.benefitChangeIds),
          fields_changed: JSON.stringify(effect.fieldsChanged),
          resolved_by: apiKeyId,
          resolved_at: this.#clock.now().toISOString(),
        };
        await repository.insertResolution(trx, row);
        const event = eventOf('carrier_file', 'discrepancy_resolved', { ...file, resolution: { ...row, member_id: discrepancy.member } });
        await this.#changes.commit(trx, { events: [event] });
        return toCarrierFileResponse(file, [...resolutions, row]);
      });
    } catch (error) {
      // A resolution of the same discrepancy that committed first (the unique index): nothing of this one stays.
      if (isUniqueViolation(error) && error instanceof Error && error.message.includes('carrier_file_resolutions')) throw new InvalidState(ALREADY_RESOLVED);
      throw error;
    }
  }

  async #resend(trx: Transaction<Database>, file: CarrierFileRow, discrepancy: CarrierFileDiscrepancy): Promise<Effect> {
    if (discrepancy.member === null) {
      throw new ResolutionNotApplicable(
        'No member of ours has this subscriber id: nothing of ours describes that coverage, so there is nothing to resend. Ask the carrier to end it.',
      );
    }
    if (discrepancy.kind === 'demographics') return this.#resendDemographics(trx, file, discrepancy.dependent ?? discrepancy.member);
    const line = discrepancy.lineOfCoverage!;
    const ids = await this.#retelling.retell(trx, {
      memberId: discrepancy.member,
      groupId: file.group_id,
      lineOfCoverage: line,
      day: file.as_of,
      ...RESENDS[discrepancy.kind],
    });
    if (ids === undefined) {
      throw new ResolutionNotApplicable(
        discrepancy.kind === 'extra'
          ? `The carrier ledger holds nothing this group was told of the member's ${line} coverage: nothing of ours describes the coverage the carrier holds, so there is nothing to resend. Ask the carrier to end it.`
          : `We no longer cover the member on ${line} in this group on ${file.as_of}: there is nothing of ours to resend. Compare a new file.`,
      );
    }
    return { outcome: 'benefit_change_recorded', benefitChangeIds: ids, fieldsChanged: [] };
  }

  /** Demographics reach a carrier only in an 834's demographic maintenance: the next change file sends them again. */
  async #resendDemographics(trx: Transaction<Database>, file: CarrierFileRow, personId: string): Promise<Effect> {
    const method = await repository.findConnectionMethodOfGroup(trx, file.group_id);
    if (method !== 'edi') {
      throw new ResolutionNotApplicable(
        `The group's connection is ${method ?? 'gone'}: demographics reach a carrier only in an 834's demographic maintenance, which this group does not receive. Correct them with the carrier, or accept the carrier's value if ours is wrong.`,
      );
    }
    if (!(await markDemographicsToResend(trx, file.group_id, personId))) {
      throw new ResolutionNotApplicable(
        'No 834 of this group has sent this person yet: there is nothing to send again. The next file that carries their coverage sends their demographics.',
      );
    }
    return { outcome: 'demographics_resend', benefitChangeIds: [], fieldsChanged: [] };
  }

  /** The carrier's demographics taken as ours; coverage changes only through an enrollment. */
  async #accept(trx: Transaction<Database>, scope: Scope, discrepancy: CarrierFileDiscrepancy): Promise<Effect> {
    if (discrepancy.kind !== 'demographics') {
      throw new ResolutionNotApplicable(
        `Our coverage changes only through an enrollment, under its election rules (a life event's window, open enrollment): the carrier's ${discrepancy.kind === 'extra' || discrepancy.kind === 'missing' ? 'coverage' : discrepancy.kind} cannot simply be taken as ours. If ours is wrong, enroll the member with the change; if the carrier's is, resend ours.`,
      );
    }
    const carrier = discrepancy.carrier;
    if (carrier === undefined || !('firstName' in carrier)) {
      throw new ResolutionNotApplicable(
        "This comparison was stored before carrier files kept what the carrier said: there is no carrier value to accept. Send the carrier's file again and resolve the new comparison.",
      );
    }
    const values: Record<string, string | null> = { first_name: carrier.firstName, last_name: carrier.lastName, dob: carrier.dob };
    const fields = discrepancy.fields.filter((field) => values[field] !== null && values[field] !== undefined);
    const input: DemographicsInput = Object.fromEntries(fields.map((field) => [field, values[field]!]));
    try {
      if (discrepancy.dependent !== null) {
        await this.#people.updateDependentIn(trx, scope, discrepancy.dependent, input);
        return { outcome: 'dependent_updated', benefitChangeIds: [], fieldsChanged: fields };
      }
      await this.#people.updateMemberIn(trx, scope, discrepancy.member!, input);
      return { outcome: 'member_updated', benefitChangeIds: [], fieldsChanged: fields };
    } catch (error) {
      // The update's own checks (a date of birth in the future, a name an 834 cannot carry) refuse the carrier's value.
      if (error instanceof ValidationFailed) {
        const reasons = (error.inputErrors ?? []).map((problem) => `${problem.field}: ${problem.message}`).join(' ');
        throw new ResolutionNotApplicable(`The carrier's value cannot be ours, as an update of ours would refuse it. ${reasons}`);
      }
      throw error;
    }
  }
}
