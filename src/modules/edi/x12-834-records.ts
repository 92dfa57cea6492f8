/** What the 834 writer (x12-834.ts) is given: the envelope and header, and each subscriber with dependents and coverage lines. */
import type { CoverageTier, DependentRelationship } from '../plans/coverage-tier.ts';
import type { LineOfCoverage } from '../plans/plan.table.ts';
import type {
  BenefitStatus,
  EmploymentStatus834,
  FileAction,
  InterchangeIdQualifier,
  MaintenanceReason,
  MaintenanceType,
  PayerIdQualifier,
} from './x12-codes.ts';
import type { X12ValueError } from './x12-elements.ts';

/** Everything about the file that is not a member: the envelope (ISA, GS) and the 834 header (BGN, REF, DTP, N1). */
export interface Envelope834 {
  /** ISA05/ISA06: the sender's id (at most 15 characters; padded) and who assigned it. */
  sender: { qualifier: InterchangeIdQualifier; id: string };
  /** ISA07/ISA08: the receiver's id and who assigned it. */
  receiver: { qualifier: InterchangeIdQualifier; id: string };
  /** ISA13 (= IEA02): unique per sender, 1..999999999, written with nine digits. */
  interchangeControlNumber: number;
  /** ISA14: whether a TA1 is wanted back. */
  acknowledgementRequested: boolean;
  /** ISA15: T or P. */
  usage: 'test' | 'production';
  /** ISA09/ISA10, GS04/GS05, BGN03/BGN04: written in UTC, which BGN05 says (UT). */
  createdAt: Date;
  /** GS02/GS03: the application sender and receiver codes agreed with the carrier. */
  applicationSenderCode: string;
  applicationReceiverCode: string;
  /** GS06 (= GE02). */
  groupControlNumber: number;
  /** ST02 (= SE02), written with at least four digits. */
  transactionSetControlNumber: number;
  /** BGN02: the sender's reference for this file. */
  referenceId: string;
  /** BGN08: changes only, a full replacement, or a full file to compare. */
  action: FileAction;
  /** REF*38: the master policy (group) number, when the carrier wants it. */
  masterPolicyNumber?: string;
  /** DTP*007 (file effective) and DTP*303 (maintenance effective), 'YYYY-MM-DD'. */
  fileEffectiveDate?: string;
  maintenanceEffectiveDate?: string;
  /** N1*P5 (1000A): the employer, with its FEIN (N103 FI). */
  sponsor: { name: string; fein: string };
  /** N1*IN (1000B): the carrier and its id. */
  payer: { name: string; idQualifier: PayerIdQualifier; id: string };
}

export interface PersonName834 {
  last: string;
  first?: string | null;
  middle?: string | null;
  suffix?: string | null;
}

export interface Address834 {
  line1: string;
  line2?: string | null;
  city: string;
  /** Two-letter state or province code. */
  state?: string | null;
  postalCode?: string | null;
  /** Two- or three-letter country code; written only for an address outside the US. */
  country?: string | null;
}

/** One 2300 loop: a coverage line of the member. */
export interface Coverage834 {
  /** HD01. */
  maintenanceType: MaintenanceType;
  /** HD03 from INSURANCE_LINE_CODES, unless `insuranceLineCode` is given. */
  line: LineOfCoverage;
  /**
   * HD03 as the carrier's companion guide has it (2-3 capital letters): a plan type (PPO for a medical plan),
   * or a code for a line the guide has none for (life, AD&D, ...).
   */
  insuranceLineCode?: string | null;
  /** HD04: the carrier's plan or coverage description. */
  planDescription?: string | null;
  /** HD05 from COVERAGE_LEVEL_CODES, unless `coverageLevelCode` is given. */
  tier?: CoverageTier | null;
  /** HD05 as the carrier's companion guide has it (3 capital letters or digits, e.g. E1D). */
  coverageLevelCode?: string | null;
  /** DTP*348 and DTP*349, 'YYYY-MM-DD'. */
  benefitBegin: string;
  benefitEnd?: string | null;
}

/**
 * A change of a person's identifying data the carrier holds (005010X220A1 INS04 25): sent as a loop of its own
 * with DTP*303 (maintenance effective) and, when the name changed, 2100A NM101 74 with the new name and 2100B
 * (NM1*70) with the name as last sent.
 */
export interface DemographicChange834 {
  /** The name the carrier was last sent, when the name changed; null otherwise (or when not known). */
  priorName: PersonName834 | null;
  /** DTP*303, 'YYYY-MM-DD'. */
  effective: string;
}

export interface Member834 {
  /** INS03. */
  maintenanceType: MaintenanceType;
  /** INS04. */
  maintenanceReason?: MaintenanceReason | null;
  /** INS05; active when not given. */
  benefitStatus?: BenefitStatus;
  /** NM103-NM107. */
  name: PersonName834;
  /** NM109 with NM108 34, nine digits. */
  ssn?: string | null;
  /** N3/N4. */
  address?: Address834 | null;
  /** DMG02, 'YYYY-MM-DD'. */
  dateOfBirth: string;
  /** DMG03: F, M, or U when not recorded. */
  sex: 'male' | 'female' | null;
  /** REF*1L: the member's group or policy number. */
  memberPolicyNumber?: string | null;
  /** DTP*356/357. */
  eligibilityBegin?: string | null;
  eligibilityEnd?: string | null;
  /** The 2300 loops, in order. */
  coverages: readonly Coverage834[];
  /** A demographic change to send: its own loop before this one when the person has coverage loops, else this loop (which is then 001/25). */
  demographicChange?: DemographicChange834 | null;
}

/** A subscriber and the dependents whose 2000 loops follow theirs. */
export interface Subscriber834 extends Member834 {
  /** REF*0F of the subscriber and of each of their dependents. */
  subscriberId: string;
  /** INS08. */
  employmentStatus: EmploymentStatus834;
  /** DTP*336/337. */
  employmentBegin?: string | null;
  employmentEnd?: string | null;
  dependents?: readonly Dependent834[];
}

export interface Dependent834 extends Member834 {
  /** INS02. */
  relationship: DependentRelationship;
}

export interface Write834Options {
  /** A line feed after each segment terminator, for people reading the file; off by default. */
  newlineAfterSegment?: boolean;
  /**
   * Called for a subscriber whose loops cannot be written (a value the guide does not allow): that subscriber
   * (with their dependents) is left out and the file goes on. Without it, such a subscriber ends the iteration
   * with an X12ValueError.
   */
  onInvalidSubscriber?: (subscriber: Subscriber834, error: X12ValueError) => void;
}
