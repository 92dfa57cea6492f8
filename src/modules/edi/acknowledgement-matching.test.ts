import { describe, expect, it } from 'vitest';
import { controlNumberDigits, matchAcknowledgement, type SentEnvelope } from './acknowledgement-matching.ts';
import { readAcknowledgement } from './x12-acknowledgement.ts';

/** Our file: from ZZ/BENEFITSCO (GS02 BENEFITSCO) to ZZ/CARRIER1 (GS03 CARRIER1), ISA13 42, GS06 7, ST02 0001. */
const SENT: SentEnvelope = {
  senderQualifier: 'ZZ',
  senderId: 'BENEFITSCO',
  receiverQualifier: 'ZZ',
  receiverId: 'CARRIER1',
  applicationSenderCode: 'BENEFITSCO',
  applicationReceiverCode: 'CARRIER1',
  interchangeControlNumber: 42,
  groupControlNumber: 7,
  transactionSetControlNumber: '0001',
};

interface Parts {
  sender: [string, string];
  receiver: [string, string];
  gs02: string;
  gs03: string;
  ak101: string;
  ak102: string;
  ak902: string;
  /** AK2 loops: [AK201, AK202, IK501]. */
  sets: [string, string, string][];
  ak901: string;
}

const CARRIER_ANSWER: Parts = {
  sender: ['ZZ', 'CARRIER1'],
  receiver: ['ZZ', 'BENEFITSCO'],
  gs02: 'CARRIER1',
  gs03: 'BENEFITSCO',
  ak101: 'BE',
  ak102: '7',
  ak902: '1',
  sets: [['834', '0001', 'A']],
  ak901: 'A',
};

function isa(sender: [string, string], receiver: [string, string], controlNumber: string): string {
  return `${['ISA', '00', ' '.repeat(10), '00', ' '.repeat(10), sender[0], sender[1].padEnd(15), receiver[0], receiver[1].padEnd(15), '261126', '0830', '^', '00501', controlNumber, '0', 'T', ':'].join('*')}~`;
}

/** A 999 as a carrier writes it, with the parts given. */
function text999(overrides: Partial<Parts> = {}): string {
  const parts = { ...CARRIER_ANSWER, ...overrides };
  const body = [
    'ST*999*0001*005010X231A1',
    `AK1*${parts.ak101}*${parts.ak102}*005010X220A1`,
    ...parts.sets.flatMap(([id, control, result]) => [`AK2*${id}*${control}*005010X220A1`, `IK5*${result}`]),
    `AK9*${parts.ak901}*${parts.ak902}*1*1`,
  ];
  return [
    isa(parts.sender, parts.receiver, '000000901'),
    `GS*FA*${parts.gs02}*${parts.gs03}*20261126*0830*901*X*005010X231A1~`,
    ...body.map((segment) => `${segment}~`),
    `SE*${body.length + 1}*0001~`,
    'GE*1*901~',
    'IEA*1*000000901~',
  ].join('\n');
}

function textTa1(ta101: string, sender: [string, string] = ['ZZ', 'CARRIER1'], receiver: [string, string] = ['ZZ', 'BENEFITSCO']): string {
  return [isa(sender, receiver, '000000902'), `TA1*${ta101}*261126*0830*R*022~`, 'IEA*0*000000902~'].join('\n');
}

const match = (text: string) => matchAcknowledgement(readAcknowledgement(text), SENT);
const elementsOf = (text: string) => {
  const result = match(text);
  return result.kind === 'mismatched' ? result.mismatches.map((mismatch) => mismatch.element) : result.kind;
};

describe('controlNumberDigits', () => {
  it.each([
    ['7', '7'],
    ['0007', '7'],
    ['000000007', '7'],
    ['999999999', '999999999'],
    ['+7', undefined],
    ['7.0', undefined],
    ['0x7', undefined],
    ['7e0', undefined],
    [' 7', undefined],
    ['7 ', undefined],
    ['-7', undefined],
    ['', undefined],
    ['0000000007', undefined],
    ['７', undefined],
  ])('%j is %j', (text, digits) => {
    expect(controlNumberDigits(text)).toBe(digits);
  });
});

describe('matchAcknowledgement: 999', () => {
  it('when every element is what the carrier answers to the file, then it matches with the group result', () => {
    expect(match(text999())).toEqual({ kind: 'matched', verdict: { kind: '999', result: 'accepted', codes: ['AK9:A', 'IK5:A'] } });
  });

  it('when AK102 has leading zeros (N0 rendering of the same number), then it matches', () => {
    expect(match(text999({ ak102: '000000007' })).kind).toBe('matched');
  });

  it('when the group is accepted without AK2 loops, then it matches (AK2 is required when the set decides)', () => {
    expect(match(text999({ sets: [] })).kind).toBe('matched');
  });

  it.each(['+7', '7.0', '0x7', '7e0', '07.', '7 '])('when AK102 is %j, then it names no group of ours', (ak102) => {
    expect(match(text999({ ak102 }))).toEqual({ kind: 'unrelated' });
  });

  it('when it acknowledges an 837 (AK101 HC, AK201 837) to another receiver under our GS06, then each of those elements is named', () => {
    expect(elementsOf(text999({ receiver: ['ZZ', 'SOMEONEELSE'], ak101: 'HC', sets: [['837', '0001', 'A']] }))).toEqual(['ISA08', 'AK101', 'AK201']);
  });

  it.each<[string, Partial<Parts>, string[]]>([
    ['another sender qualifier (ISA05)', { sender: ['01', 'CARRIER1'] }, ['ISA05']],
    ['another sender (ISA06)', { sender: ['ZZ', 'OTHERHEALTH'] }, ['ISA06']],
    ['another receiver qualifier (ISA07)', { receiver: ['01', 'BENEFITSCO'] }, ['ISA07']],
    ['another receiver (ISA08)', { receiver: ['ZZ', 'SOMEONEELSE'] }, ['ISA08']],
    ['sender and receiver not swapped', { sender: ['ZZ', 'BENEFITSCO'], receiver: ['ZZ', 'CARRIER1'] }, ['ISA06', 'ISA08']],
    ['another application sender (GS02)', { gs02: 'OTHERAPP' }, ['GS02']],
    ['another application receiver (GS03)', { gs03: 'OTHERAPP' }, ['GS03']],
    ['GS02 and GS03 not swapped', { gs02: 'BENEFITSCO', gs03: 'CARRIER1' }, ['GS02', 'GS03']],
    ['AK101 HC', { ak101: 'HC' }, ['AK101']],
    ['AK902 counting two sets', { ak902: '2' }, ['AK902']],
    ['AK201 837', { sets: [['837', '0001', 'A']] }, ['AK201']],
    ['a rejected set with another ST02 (AK202)', { ak901: 'R', sets: [['834', '0002', 'R']] }, ['AK202']],
    ['AK202 1 for our 0001 (an exact echo is required)', { sets: [['834', '1', 'A']] }, ['AK202']],
    [
      'two AK2 loops',
      {
        ak902: '1',
        sets: [
          ['834', '0001', 'A'],
          ['834', '0001', 'R'],
        ],
      },
      ['AK2'],
    ],
    ['a partial acceptance (AK901 P) without the set', { ak901: 'P', sets: [] }, ['AK2']],
  ])('when the 999 has %s, then it does not match and names it', (_label, overrides, elements) => {
    expect(elementsOf(text999(overrides))).toEqual(elements);
  });

  it('when a mismatch is reported, then the value found is shortened and cleaned, and what was expected is given', () => {
    const result = match(text999({ gs02: `X${'Y'.repeat(60)}` }));
    expect(result).toEqual({ kind: 'mismatched', mismatches: [{ element: 'GS02', expected: 'CARRIER1', found: `X${'Y'.repeat(34)}…` }] });
  });
});

describe('matchAcknowledgement: TA1', () => {
  it('when TA101 is our ISA13 and the envelope is swapped right, then it matches', () => {
    expect(match(textTa1('000000042'))).toEqual({ kind: 'matched', verdict: { kind: 'TA1', result: 'rejected', codes: ['TA1:R', 'TA105:022'] } });
  });

  it('when it is addressed to another receiver, then it does not match (ISA08)', () => {
    expect(elementsOf(textTa1('000000042', ['ZZ', 'CARRIER1'], ['ZZ', 'SOMEONEELSE']))).toEqual(['ISA08']);
  });

  it('when TA101 is another interchange, then it is unrelated', () => {
    expect(match(textTa1('000000043'))).toEqual({ kind: 'unrelated' });
  });
});
