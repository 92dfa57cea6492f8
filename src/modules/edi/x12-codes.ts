/**
 * The X12 code values the service writes in 834 files (ASC X12N 005010X220A1, Benefit Enrollment and
 * Maintenance) and reads in 999 (005010X231A1, Implementation Acknowledgment) and TA1 acknowledgements, as
 * data: one row per code, each citing the element (and its data element number) it is a value of. A code
 * outside its element's list in the guide is rejected by the carrier's translator (999 IK403 7 or I6), so a
 * service value without a row here cannot be sent: the `satisfies Record<...>` makes a new enum value fail to
 * compile until it is given a row.
 */
import type { EmploymentStatus } from '../members/member.table.ts';
import type { CoverageTier, DependentRelationship } from '../plans/coverage-tier.ts';
import type { LineOfCoverage } from '../plans/plan.table.ts';

/** The implementation guide the writer follows: GS08 and ST03 (005010X220A1 1000 / ST03). */
export const BENEFIT_ENROLLMENT_GUIDE = '005010X220A1';

/** INS02 of every member: the subscriber's own row and one per Dependent.member_relationship. */
export const INDIVIDUAL_RELATIONSHIP_CODES = {
  // 005010X220A1 INS02 (1069): 18 Self (the subscriber, INS01 Y).
  self: '18',
  // 005010X220A1 INS02 (1069): 01 Spouse.
  spouse: '01',
  // 005010X220A1 INS02 (1069): 53 Life Partner ("acts like a spouse without a legal marriage").
  domestic_partner: '53',
  // 005010X220A1 INS02 (1069): 53 Life Partner (a civil union is not a marriage under federal law).
  civil_union: '53',
  // 005010X220A1 INS02 (1069): 25 Ex-spouse.
  ex_spouse: '25',
  // 005010X220A1 INS02 (1069): 19 Child.
  child: '19',
  // 005010X220A1 INS02 (1069): 05 Grandson or Granddaughter.
  grandchild: '05',
  // 005010X220A1 INS02 (1069): 17 Stepson or Stepdaughter.
  step_child: '17',
  // 005010X220A1 INS02 (1069): 10 Foster Child.
  foster_child: '10',
  // 005010X220A1 INS02 (1069): 09 Adopted Child.
  adopted_child: '09',
  // 005010X220A1 INS02 (1069): 15 Ward (the member is the dependent's legal guardian; 26 and 31 name the reverse).
  legal_guardianship: '15',
  // 005010X220A1 INS02 (1069): 19 Child; a QMCSO covers a child of the participant (ERISA §609(a)(2)(C), 29 U.S.C. 1169).
  court_ordered_dependent: '19',
  // 005010X220A1 INS02 (1069): G8 Other Relationship.
  other: 'G8',
} as const satisfies Record<'self' | DependentRelationship, string>;
export type IndividualRelationship = keyof typeof INDIVIDUAL_RELATIONSHIP_CODES;

/** INS03 (member) and HD01 (coverage): what the loop does. HD01 allows more codes; these are the common five. */
export const MAINTENANCE_TYPE_CODES = {
  // 005010X220A1 INS03/HD01 (875): 001 Change.
  change: '001',
  // 005010X220A1 INS03/HD01 (875): 021 Addition.
  addition: '021',
  // 005010X220A1 INS03/HD01 (875): 024 Cancellation or Termination.
  cancellation_or_termination: '024',
  // 005010X220A1 INS03/HD01 (875): 025 Reinstatement.
  reinstatement: '025',
  // 005010X220A1 INS03/HD01 (875): 030 Audit or Compare (full-file audits).
  audit_or_compare: '030',
} as const satisfies Record<string, string>;
export type MaintenanceType = keyof typeof MAINTENANCE_TYPE_CODES;

/** INS04: why the member loop is sent. The rows the service's events need, not the guide's whole list. */
export const MAINTENANCE_REASON_CODES = {
  // 005010X220A1 INS04 (1203): 01 Divorce.
  divorce: '01',
  // 005010X220A1 INS04 (1203): 02 Birth.
  birth: '02',
  // 005010X220A1 INS04 (1203): 03 Death.
  death: '03',
  // 005010X220A1 INS04 (1203): 04 Retirement.
  retirement: '04',
  // 005010X220A1 INS04 (1203): 05 Adoption.
  adoption: '05',
  // 005010X220A1 INS04 (1203): 07 Termination of Benefits.
  termination_of_benefits: '07',
  // 005010X220A1 INS04 (1203): 08 Termination of Employment.
  termination_of_employment: '08',
  // 005010X220A1 INS04 (1203): 09 Consolidation Omnibus Budget Reconciliation Act (COBRA).
  cobra: '09',
  // 005010X220A1 INS04 (1203): 14 Voluntary Withdrawal.
  voluntary_withdrawal: '14',
  // 005010X220A1 INS04 (1203): 22 Plan Change.
  plan_change: '22',
  // 005010X220A1 INS04 (1203): 25 Change in Identifying Data Elements (name, SSN, date of birth).
  change_in_identifying_data: '25',
  // 005010X220A1 INS04 (1203): 26 Declined Coverage.
  declined_coverage: '26',
  // 005010X220A1 INS04 (1203): 28 Initial Enrollment.
  initial_enrollment: '28',
  // 005010X220A1 INS04 (1203): 29 Benefit Selection.
  benefit_selection: '29',
  // 005010X220A1 INS04 (1203): 31 Legal Separation.
  legal_separation: '31',
  // 005010X220A1 INS04 (1203): 32 Marriage.
  marriage: '32',
  // 005010X220A1 INS04 (1203): 33 Personnel Data (address, employment and other non-identifying changes).
  personnel_data: '33',
  // 005010X220A1 INS04 (1203): 37 Leave of Absence with Benefits.
  leave_of_absence_with_benefits: '37',
  // 005010X220A1 INS04 (1203): 38 Leave of Absence without Benefits.
  leave_of_absence_without_benefits: '38',
  // 005010X220A1 INS04 (1203): 39 Lay Off with Benefits.
  lay_off_with_benefits: '39',
  // 005010X220A1 INS04 (1203): 40 Lay Off without Benefits.
  lay_off_without_benefits: '40',
  // 005010X220A1 INS04 (1203): 41 Re-enrollment.
  re_enrollment: '41',
  // 005010X220A1 INS04 (1203): 43 Change of Location.
  change_of_location: '43',
  // 005010X220A1 INS04 (1203): 59 Non Payment.
  non_payment: '59',
  // 005010X220A1 INS04 (1203): AI No Reason Given.
  no_reason_given: 'AI',
  // 005010X220A1 INS04 (1203): EC Member Benefit Selection.
  member_benefit_selection: 'EC',
  // 005010X220A1 INS04 (1203): XN Notification Only.
  notification_only: 'XN',
  // 005010X220A1 INS04 (1203): XT Transfer.
  transfer: 'XT',
} as const satisfies Record<string, string>;
export type MaintenanceReason = keyof typeof MAINTENANCE_REASON_CODES;

/** INS05 (required on every member): the kind of coverage benefits are paid under. */
export const BENEFIT_STATUS_CODES = {
  // 005010X220A1 INS05 (1216): A Active.
  active: 'A',
  // 005010X220A1 INS05 (1216): C Consolidated Omnibus Budget Reconciliation Act (COBRA).
  cobra: 'C',
  // 005010X220A1 INS05 (1216): S Surviving Insured.
  surviving_insured: 'S',
  // 005010X220A1 INS05 (1216): T Tax Equity and Fiscal Responsibility Act (TEFRA).
  tefra: 'T',
} as const satisfies Record<string, string>;
export type BenefitStatus = keyof typeof BENEFIT_STATUS_CODES;

/**
 * INS08 of a subscriber: Member.employment_status, plus the states the service records elsewhere (a
 * termination date, a leave) or not at all (`active` when employment_status is null).
 */
export const EMPLOYMENT_STATUS_CODES = {
  // 005010X220A1 INS08 (584): FT Full-time.
  full_time: 'FT',
  // 005010X220A1 INS08 (584): PT Part-time.
  part_time: 'PT',
  // 005010X220A1 INS08 (584): AC Active (the guide has no seasonal code).
  seasonal: 'AC',
  // 005010X220A1 INS08 (584): AC Active (the guide has no temporary code).
  temporary: 'AC',
  // 005010X220A1 INS08 (584): AC Active.
  active: 'AC',
  // 005010X220A1 INS08 (584): L1 Leave of Absence.
  leave_of_absence: 'L1',
  // 005010X220A1 INS08 (584): RT Retired.
  retired: 'RT',
  // 005010X220A1 INS08 (584): TE Terminated.
  terminated: 'TE',
} as const satisfies Record<EmploymentStatus | 'active' | 'leave_of_absence' | 'retired' | 'terminated', string>;
export type EmploymentStatus834 = keyof typeof EMPLOYMENT_STATUS_CODES;

/**
 * HD03: the whole code list of 005010X220A1 HD03 (1205). Only health lines have codes: the guide is a HIPAA
 * health-plan standard, so life, AD&D, supplemental and account-based lines have none (null below); a carrier
 * taking them on an 834 defines its own codes in its companion guide.
 */
export const INSURANCE_LINE_CODE_LIST = [
  'AG', // Preventative Care/Wellness
  'AH', // 24 Hour Care
  'AJ', // Medicare Risk
  'AK', // Mental Health
  'DCP', // Dental Capitation
  'DEN', // Dental
  'EPO', // Exclusive Provider Organization
  'FAC', // Facility
  'HE', // Hearing
  'HLT', // Health
  'HMO', // Health Maintenance Organization
  'LTC', // Long-Term Care
  'LTD', // Long-Term Disability
  'MM', // Major Medical
  'MOD', // Mail Order Drug
  'PDG', // Prescription Drug
  'POS', // Point of Service
  'PPO', // Preferred Provider Organization
  'PRA', // Practitioners
  'STD', // Short-Term Disability
  'UR', // Utilization Review
  'VIS', // Vision
] as const;
export type InsuranceLineCode = (typeof INSURANCE_LINE_CODE_LIST)[number];

/** HD03 of a plan's line_of_coverage; null where the guide has no code for the line. */
export const INSURANCE_LINE_CODES = {
  // 005010X220A1 HD03 (1205): HLT Health (HMO, PPO, EPO or POS may be given per plan instead).
  medical: 'HLT',
  // 005010X220A1 HD03 (1205): DEN Dental.
  dental: 'DEN',
  // 005010X220A1 HD03 (1205): VIS Vision.
  vision: 'VIS',
  // 005010X220A1 HD03 (1205): no code for life insurance.
  life: null,
  // 005010X220A1 HD03 (1205): no code for accidental death and dismemberment.
  accidental_death: null,
  // 005010X220A1 HD03 (1205): STD Short-Term Disability.
  short_term_disability: 'STD',
  // 005010X220A1 HD03 (1205): LTD Long-Term Disability.
  long_term_disability: 'LTD',
  // 005010X220A1 HD03 (1205): no code for accident insurance.
  accident: null,
  // 005010X220A1 HD03 (1205): no code for critical illness insurance.
  critical_illness: null,
  // 005010X220A1 HD03 (1205): no code for cancer insurance.
  cancer: null,
  // 005010X220A1 HD03 (1205): no code for hospital indemnity insurance.
  hospital_indemnity: null,
  // 005010X220A1 HD03 (1205): no code for a health FSA (not insurance).
  healthcare_fsa: null,
  // 005010X220A1 HD03 (1205): no code for a limited-purpose FSA.
  limited_purpose_fsa: null,
  // 005010X220A1 HD03 (1205): no code for a dependent care FSA.
  dependent_care_fsa: null,
  // 005010X220A1 HD03 (1205): no code for an HSA (an account, not a plan).
  hsa: null,
} as const satisfies Record<LineOfCoverage, InsuranceLineCode | null>;

/**
 * HD05 of each coverage tier. One child and several children are both ECH (Employee and Children), the code
 * carriers' companion guides most often list; a carrier that prices one child apart takes E1D (Employee and
 * One Dependent) for `member_child` through its companion guide (Coverage834.coverageLevelCode).
 */
export const COVERAGE_LEVEL_CODES = {
  // 005010X220A1 HD05 (1207): EMP Employee Only.
  member: 'EMP',
  // 005010X220A1 HD05 (1207): ESP Employee and Spouse.
  member_spouse: 'ESP',
  // 005010X220A1 HD05 (1207): ECH Employee and Children.
  member_child: 'ECH',
  // 005010X220A1 HD05 (1207): ECH Employee and Children.
  member_children: 'ECH',
  // 005010X220A1 HD05 (1207): FAM Family.
  member_family: 'FAM',
} as const satisfies Record<CoverageTier, string>;

/** DTP01 qualifiers the writer uses; every DTP it writes has DTP02 D8 (CCYYMMDD). */
export const DATE_QUALIFIERS = {
  // 005010X220A1 1000 DTP01 (374): 007 Effective (the file's effective date).
  file_effective: '007',
  // 005010X220A1 1000 DTP01 (374): 303 Maintenance Effective.
  maintenance_effective: '303',
  // 005010X220A1 2000 DTP01 (374): 336 Employment Begin.
  employment_begin: '336',
  // 005010X220A1 2000 DTP01 (374): 337 Employment End.
  employment_end: '337',
  // 005010X220A1 2000 DTP01 (374): 356 Eligibility Begin.
  eligibility_begin: '356',
  // 005010X220A1 2000 DTP01 (374): 357 Eligibility End.
  eligibility_end: '357',
  // 005010X220A1 2300 DTP01 (374): 348 Benefit Begin.
  benefit_begin: '348',
  // 005010X220A1 2300 DTP01 (374): 349 Benefit End.
  benefit_end: '349',
} as const satisfies Record<string, string>;
export type DateQualifier = keyof typeof DATE_QUALIFIERS;

/** DMG03 (required when DMG is sent) of Member/Dependent.biological_sex; null (not recorded) is U. */
export const GENDER_CODES = {
  // 005010X220A1 DMG03 (1068): F Female.
  female: 'F',
  // 005010X220A1 DMG03 (1068): M Male.
  male: 'M',
  // 005010X220A1 DMG03 (1068): U Unknown.
  unknown: 'U',
} as const satisfies Record<string, string>;
export type Gender834 = keyof typeof GENDER_CODES;

/** BGN08: what the receiver does with the file as a whole. */
export const FILE_ACTION_CODES = {
  // 005010X220A1 BGN08 (306): 2 Change (Update): the file holds changes only.
  change: '2',
  // 005010X220A1 BGN08 (306): RX Replace: the file is the full population and replaces the last one.
  replace: 'RX',
  // 005010X220A1 BGN08 (306): 4 Verify: a full file sent for comparison only.
  verify: '4',
} as const satisfies Record<string, string>;
export type FileAction = keyof typeof FILE_ACTION_CODES;

/** ISA05/ISA07: who assigned the sender and receiver ids (005010X220A1 ISA05/ISA07, I05). */
export const INTERCHANGE_ID_QUALIFIERS = [
  '01', // Duns (Dun & Bradstreet)
  '14', // Duns Plus Suffix
  '20', // Health Industry Number (HIN)
  '27', // Carrier Identification Number as assigned by CMS
  '28', // Fiscal Intermediary Identification Number as assigned by CMS
  '29', // Medicare Provider and Supplier Identification Number as assigned by CMS
  '30', // U.S. Federal Tax Identification Number
  '33', // National Association of Insurance Commissioners Company Code (NAIC)
  'ZZ', // Mutually Defined
] as const;
export type InterchangeIdQualifier = (typeof INTERCHANGE_ID_QUALIFIERS)[number];

/** N103 of the payer (1000B): what kind of id N104 is. */
export const PAYER_ID_QUALIFIERS = [
  '94', // 005010X220A1 1000B N103 (66): 94 Code assigned by the organization that is the ultimate destination
  'FI', // 005010X220A1 1000B N103 (66): FI Federal Taxpayer's Identification Number
  'XV', // 005010X220A1 1000B N103 (66): XV Centers for Medicare and Medicaid Services PlanID
] as const;
export type PayerIdQualifier = (typeof PAYER_ID_QUALIFIERS)[number];

// ----------------------------------------------------------------------------------------------------------
// Acknowledgements: what a carrier says back. Descriptions are the code names of the X12 dictionary.

/** AK901: the result for a functional group. */
export const FUNCTIONAL_GROUP_ACKNOWLEDGE_CODES = {
  // 005010X231A1 AK901 (715): A Accepted.
  A: 'Accepted',
  // 005010X231A1 AK901 (715): E Accepted, But Errors Were Noted.
  E: 'Accepted, but errors were noted',
  // 005010X231A1 AK901 (715): M Rejected, Message Authentication Code (MAC) Failed.
  M: 'Rejected, message authentication code (MAC) failed',
  // 005010X231A1 AK901 (715): P Partially Accepted, At Least One Transaction Set Was Rejected.
  P: 'Partially accepted, at least one transaction set was rejected',
  // 005010X231A1 AK901 (715): R Rejected.
  R: 'Rejected',
  // 005010X231A1 AK901 (715): W Rejected, Assurance Failed Validity Tests.
  W: 'Rejected, assurance failed validity tests',
  // 005010X231A1 AK901 (715): X Rejected, Content After Decryption Could Not Be Analyzed.
  X: 'Rejected, content after decryption could not be analyzed',
} as const satisfies Record<string, string>;
export type FunctionalGroupResult = keyof typeof FUNCTIONAL_GROUP_ACKNOWLEDGE_CODES;

/** IK501: the result for one transaction set (AK901's codes but P). */
export const TRANSACTION_SET_ACKNOWLEDGMENT_CODES = {
  // 005010X231A1 IK501 (717): A Accepted.
  A: 'Accepted',
  // 005010X231A1 IK501 (717): E Accepted But Errors Were Noted.
  E: 'Accepted, but errors were noted',
  // 005010X231A1 IK501 (717): M Rejected, Message Authentication Code (MAC) Failed.
  M: 'Rejected, message authentication code (MAC) failed',
  // 005010X231A1 IK501 (717): R Rejected.
  R: 'Rejected',
  // 005010X231A1 IK501 (717): W Rejected, Assurance Failed Validity Tests.
  W: 'Rejected, assurance failed validity tests',
  // 005010X231A1 IK501 (717): X Rejected, Content After Decryption Could Not Be Analyzed.
  X: 'Rejected, content after decryption could not be analyzed',
} as const satisfies Record<string, string>;
export type TransactionSetResult = keyof typeof TRANSACTION_SET_ACKNOWLEDGMENT_CODES;

/** IK304: what is wrong with a segment. */
export const SEGMENT_ERROR_CODES: Readonly<Record<string, string>> = {
  // 005010X231A1 IK304 (620): 1 Unrecognized segment ID.
  '1': 'Unrecognized segment ID',
  // 005010X231A1 IK304 (620): 2 Unexpected segment.
  '2': 'Unexpected segment',
  // 005010X231A1 IK304 (620): 3 Required Segment Missing.
  '3': 'Required segment missing',
  // 005010X231A1 IK304 (620): 4 Loop Occurs Over Maximum Times.
  '4': 'Loop occurs over maximum times',
  // 005010X231A1 IK304 (620): 5 Segment Exceeds Maximum Use.
  '5': 'Segment exceeds maximum use',
  // 005010X231A1 IK304 (620): 6 Segment Not in Defined Transaction Set.
  '6': 'Segment not in defined transaction set',
  // 005010X231A1 IK304 (620): 7 Segment Not in Proper Sequence.
  '7': 'Segment not in proper sequence',
  // 005010X231A1 IK304 (620): 8 Segment Has Data Element Errors.
  '8': 'Segment has data element errors',
  // 005010X231A1 IK304 (620): I4 Implementation "Not Used" Segment Present.
  I4: 'Implementation "not used" segment present',
  // 005010X231A1 IK304 (620): I6 Implementation Dependent Segment Missing.
  I6: 'Implementation dependent segment missing',
  // 005010X231A1 IK304 (620): I7 Implementation Loop Occurs Under Minimum Times.
  I7: 'Implementation loop occurs under minimum times',
  // 005010X231A1 IK304 (620): I8 Implementation Segment Below Minimum Use.
  I8: 'Implementation segment below minimum use',
  // 005010X231A1 IK304 (620): I9 Implementation Dependent "Not Used" Segment Present.
  I9: 'Implementation dependent "not used" segment present',
};

/** IK403: what is wrong with an element. */
export const ELEMENT_ERROR_CODES: Readonly<Record<string, string>> = {
  // 005010X231A1 IK403 (621): 1 Required Data Element Missing.
  '1': 'Required data element missing',
  // 005010X231A1 IK403 (621): 2 Conditional Required Data Element Missing.
  '2': 'Conditional required data element missing',
  // 005010X231A1 IK403 (621): 3 Too Many Data Elements.
  '3': 'Too many data elements',
  // 005010X231A1 IK403 (621): 4 Data Element Too Short.
  '4': 'Data element too short',
  // 005010X231A1 IK403 (621): 5 Data Element Too Long.
  '5': 'Data element too long',
  // 005010X231A1 IK403 (621): 6 Invalid Character In Data Element.
  '6': 'Invalid character in data element',
  // 005010X231A1 IK403 (621): 7 Invalid Code Value.
  '7': 'Invalid code value',
  // 005010X231A1 IK403 (621): 8 Invalid Date.
  '8': 'Invalid date',
  // 005010X231A1 IK403 (621): 9 Invalid Time.
  '9': 'Invalid time',
  // 005010X231A1 IK403 (621): 10 Exclusion Condition Violated.
  '10': 'Exclusion condition violated',
  // 005010X231A1 IK403 (621): 12 Too Many Repetitions.
  '12': 'Too many repetitions',
  // 005010X231A1 IK403 (621): 13 Too Many Components.
  '13': 'Too many components',
  // 005010X231A1 IK403 (621): I6 Code Value Not Used in Implementation.
  I6: 'Code value not used in implementation',
  // 005010X231A1 IK403 (621): I9 Implementation Dependent Data Element Missing.
  I9: 'Implementation dependent data element missing',
  // 005010X231A1 IK403 (621): I10 Implementation "Not Used" Data Element Present.
  I10: 'Implementation "not used" data element present',
  // 005010X231A1 IK403 (621): I11 Implementation Too Few Repetitions.
  I11: 'Implementation too few repetitions',
  // 005010X231A1 IK403 (621): I12 Implementation Pattern Match Failure.
  I12: 'Implementation pattern match failure',
  // 005010X231A1 IK403 (621): I13 Implementation Dependent "Not Used" Data Element Present.
  I13: 'Implementation dependent "not used" data element present',
};

/** IK502-IK506: what is wrong with a transaction set as a whole. */
export const TRANSACTION_SET_ERROR_CODES: Readonly<Record<string, string>> = {
  // 005010X231A1 IK502 (618): 1 Transaction Set Not Supported.
  '1': 'Transaction set not supported',
  // 005010X231A1 IK502 (618): 2 Transaction Set Trailer Missing.
  '2': 'Transaction set trailer missing',
  // 005010X231A1 IK502 (618): 3 Transaction Set Control Number in Header and Trailer Do Not Match.
  '3': 'Transaction set control number in header and trailer do not match',
  // 005010X231A1 IK502 (618): 4 Number of Included Segments Does Not Match Actual Count.
  '4': 'Number of included segments does not match actual count',
  // 005010X231A1 IK502 (618): 5 One or More Segments in Error.
  '5': 'One or more segments in error',
  // 005010X231A1 IK502 (618): 6 Missing or Invalid Transaction Set Identifier.
  '6': 'Missing or invalid transaction set identifier',
  // 005010X231A1 IK502 (618): 7 Missing or Invalid Transaction Set Control Number.
  '7': 'Missing or invalid transaction set control number',
  // 005010X231A1 IK502 (618): 8 Authentication Key Name Unknown.
  '8': 'Authentication key name unknown',
  // 005010X231A1 IK502 (618): 9 Encryption Key Name Unknown.
  '9': 'Encryption key name unknown',
  // 005010X231A1 IK502 (618): 10 Requested Service (Authentication or Encrypted) Not Available.
  '10': 'Requested service (authentication or encrypted) not available',
  // 005010X231A1 IK502 (618): 11 Unknown Security Recipient.
  '11': 'Unknown security recipient',
  // 005010X231A1 IK502 (618): 12 Incorrect Message Length (Encryption Only).
  '12': 'Incorrect message length (encryption only)',
  // 005010X231A1 IK502 (618): 13 Message Authentication Code Failed.
  '13': 'Message authentication code failed',
  // 005010X231A1 IK502 (618): 15 Unknown Security Originator.
  '15': 'Unknown security originator',
  // 005010X231A1 IK502 (618): 16 Syntax Error in Decrypted Text.
  '16': 'Syntax error in decrypted text',
  // 005010X231A1 IK502 (618): 17 Security Not Supported.
  '17': 'Security not supported',
  // 005010X231A1 IK502 (618): 18 Transaction Set not in Functional Group.
  '18': 'Transaction set not in functional group',
  // 005010X231A1 IK502 (618): 19 Invalid Transaction Set Implementation Convention Reference.
  '19': 'Invalid transaction set implementation convention reference',
  // 005010X231A1 IK502 (618): 23 Transaction Set Control Number Not Unique within the Functional Group.
  '23': 'Transaction set control number not unique within the functional group',
  // 005010X231A1 IK502 (618): 24 S3E Security End Segment Missing for S3S Security Start Segment.
  '24': 'S3E security end segment missing for S3S security start segment',
  // 005010X231A1 IK502 (618): 25 S3S Security Start Segment Missing for S3E Security End Segment.
  '25': 'S3S security start segment missing for S3E security end segment',
  // 005010X231A1 IK502 (618): 26 S4E Security End Segment Missing for S4S Security Start Segment.
  '26': 'S4E security end segment missing for S4S security start segment',
  // 005010X231A1 IK502 (618): 27 S4S Security Start Segment Missing for S4E Security End Segment.
  '27': 'S4S security start segment missing for S4E security end segment',
  // 005010X231A1 IK502 (618): I5 Implementation One or More Segments in Error.
  I5: 'Implementation one or more segments in error',
  // 005010X231A1 IK502 (618): I6 Implementation Convention Not Supported.
  I6: 'Implementation convention not supported',
};

/** AK905-AK909: what is wrong with a functional group as a whole. */
export const FUNCTIONAL_GROUP_ERROR_CODES: Readonly<Record<string, string>> = {
  // 005010X231A1 AK905 (716): 1 Functional Group Not Supported.
  '1': 'Functional group not supported',
  // 005010X231A1 AK905 (716): 2 Functional Group Version Not Supported.
  '2': 'Functional group version not supported',
  // 005010X231A1 AK905 (716): 3 Functional Group Trailer Missing.
  '3': 'Functional group trailer missing',
  // 005010X231A1 AK905 (716): 4 Group Control Number in the Functional Group Header and Trailer Do Not Agree.
  '4': 'Group control number in the functional group header and trailer do not agree',
  // 005010X231A1 AK905 (716): 5 Number of Included Transaction Sets Does Not Match Actual Count.
  '5': 'Number of included transaction sets does not match actual count',
  // 005010X231A1 AK905 (716): 6 Group Control Number Violates Syntax.
  '6': 'Group control number violates syntax',
  // 005010X231A1 AK905 (716): 10 Authentication Key Name Unknown.
  '10': 'Authentication key name unknown',
  // 005010X231A1 AK905 (716): 11 Encryption Key Name Unknown.
  '11': 'Encryption key name unknown',
  // 005010X231A1 AK905 (716): 12 Requested Service (Authentication or Encryption) Not Available.
  '12': 'Requested service (authentication or encryption) not available',
  // 005010X231A1 AK905 (716): 13 Unknown Security Recipient.
  '13': 'Unknown security recipient',
  // 005010X231A1 AK905 (716): 14 Unknown Security Originator.
  '14': 'Unknown security originator',
  // 005010X231A1 AK905 (716): 15 Syntax Error in Decrypted Text.
  '15': 'Syntax error in decrypted text',
  // 005010X231A1 AK905 (716): 16 Security Not Supported.
  '16': 'Security not supported',
  // 005010X231A1 AK905 (716): 17 Incorrect Message Length (Encryption Only).
  '17': 'Incorrect message length (encryption only)',
  // 005010X231A1 AK905 (716): 18 Message Authentication Code Failed.
  '18': 'Message authentication code failed',
  // 005010X231A1 AK905 (716): 19 Functional Group Control Number not Unique within Interchange.
  '19': 'Functional group control number not unique within interchange',
  // 005010X231A1 AK905 (716): 23 S3E Security End Segment Missing for S3S Security Start Segment.
  '23': 'S3E security end segment missing for S3S security start segment',
  // 005010X231A1 AK905 (716): 24 S3S Security Start Segment Missing for S3E End Segment.
  '24': 'S3S security start segment missing for S3E end segment',
  // 005010X231A1 AK905 (716): 25 S4E Security End Segment Missing for S4S Security Start Segment.
  '25': 'S4E security end segment missing for S4S security start segment',
  // 005010X231A1 AK905 (716): 26 S4S Security Start Segment Missing for S4E Security End Segment.
  '26': 'S4S security start segment missing for S4E security end segment',
};

/** TA104: the result for an interchange. */
export const INTERCHANGE_ACKNOWLEDGMENT_CODES = {
  // X12.5 TA104 (I17): A The Transmitted Interchange Control Structure Header and Trailer Have Been Received and Have No Errors.
  A: 'Received, no errors',
  // X12.5 TA104 (I17): E ... Received and Are Accepted But Errors Are Noted (the sender must not resend).
  E: 'Accepted, but errors are noted; do not resend',
  // X12.5 TA104 (I17): R ... Rejected Because of Errors.
  R: 'Rejected because of errors',
} as const satisfies Record<string, string>;
export type InterchangeResult = keyof typeof INTERCHANGE_ACKNOWLEDGMENT_CODES;

/** TA105: what is wrong with the interchange envelope (000 when nothing is). */
export const INTERCHANGE_NOTE_CODES: Readonly<Record<string, string>> = {
  // X12.5 TA105 (I18): 000 No error.
  '000': 'No error',
  // X12.5 TA105 (I18): 001 The Interchange Control Number in the Header and Trailer Do Not Match.
  '001': 'The interchange control number in the header and trailer do not match',
  // X12.5 TA105 (I18): 002 This Standard as Noted in the Control Standards Identifier is Not Supported.
  '002': 'This standard as noted in the control standards identifier is not supported',
  // X12.5 TA105 (I18): 003 This Version of the Controls is Not Supported.
  '003': 'This version of the controls is not supported',
  // X12.5 TA105 (I18): 004 The Segment Terminator is Invalid.
  '004': 'The segment terminator is invalid',
  // X12.5 TA105 (I18): 005 Invalid Interchange ID Qualifier for Sender.
  '005': 'Invalid interchange ID qualifier for sender',
  // X12.5 TA105 (I18): 006 Invalid Interchange Sender ID.
  '006': 'Invalid interchange sender ID',
  // X12.5 TA105 (I18): 007 Invalid Interchange ID Qualifier for Receiver.
  '007': 'Invalid interchange ID qualifier for receiver',
  // X12.5 TA105 (I18): 008 Invalid Interchange Receiver ID.
  '008': 'Invalid interchange receiver ID',
  // X12.5 TA105 (I18): 009 Unknown Interchange Receiver ID.
  '009': 'Unknown interchange receiver ID',
  // X12.5 TA105 (I18): 010 Invalid Authorization Information Qualifier Value.
  '010': 'Invalid authorization information qualifier value',
  // X12.5 TA105 (I18): 011 Invalid Authorization Information Value.
  '011': 'Invalid authorization information value',
  // X12.5 TA105 (I18): 012 Invalid Security Information Qualifier Value.
  '012': 'Invalid security information qualifier value',
  // X12.5 TA105 (I18): 013 Invalid Security Information Value.
  '013': 'Invalid security information value',
  // X12.5 TA105 (I18): 014 Invalid Interchange Date Value.
  '014': 'Invalid interchange date value',
  // X12.5 TA105 (I18): 015 Invalid Interchange Time Value.
  '015': 'Invalid interchange time value',
  // X12.5 TA105 (I18): 016 Invalid Interchange Standards Identifier Value.
  '016': 'Invalid interchange standards identifier value',
  // X12.5 TA105 (I18): 017 Invalid Interchange Version ID Value.
  '017': 'Invalid interchange version ID value',
  // X12.5 TA105 (I18): 018 Invalid Interchange Control Number Value.
  '018': 'Invalid interchange control number value',
  // X12.5 TA105 (I18): 019 Invalid Acknowledgment Requested Value.
  '019': 'Invalid acknowledgment requested value',
  // X12.5 TA105 (I18): 020 Invalid Test Indicator Value.
  '020': 'Invalid test indicator value',
  // X12.5 TA105 (I18): 021 Invalid Number of Included Groups Value.
  '021': 'Invalid number of included groups value',
  // X12.5 TA105 (I18): 022 Invalid Control Structure.
  '022': 'Invalid control structure',
  // X12.5 TA105 (I18): 023 Improper (Premature) End-of-File (Transmission).
  '023': 'Improper (premature) end-of-file (transmission)',
  // X12.5 TA105 (I18): 024 Invalid Interchange Content (e.g., Invalid GS Segment).
  '024': 'Invalid interchange content (e.g., invalid GS segment)',
  // X12.5 TA105 (I18): 025 Duplicate Interchange Control Number.
  '025': 'Duplicate interchange control number',
  // X12.5 TA105 (I18): 026 Invalid Data Element Separator.
  '026': 'Invalid data element separator',
  // X12.5 TA105 (I18): 027 Invalid Component Element Separator.
  '027': 'Invalid component element separator',
  // X12.5 TA105 (I18): 028 Invalid Delivery Date in Deferred Delivery Request.
  '028': 'Invalid delivery date in deferred delivery request',
  // X12.5 TA105 (I18): 029 Invalid Delivery Time in Deferred Delivery Request.
  '029': 'Invalid delivery time in deferred delivery request',
  // X12.5 TA105 (I18): 030 Invalid Delivery Time Code in Deferred Delivery Request.
  '030': 'Invalid delivery time code in deferred delivery request',
  // X12.5 TA105 (I18): 031 Invalid Grade of Service Code.
  '031': 'Invalid grade of service code',
};

/** The code of `key` in `table`, or undefined: an own property only, so that 'constructor' or '__proto__' is no key. */
export function lookupCode<Table extends Readonly<Record<string, string | null>>>(table: Table, key: string): Table[keyof Table] | undefined {
  return Object.hasOwn(table, key) ? (table[key] as Table[keyof Table]) : undefined;
}
