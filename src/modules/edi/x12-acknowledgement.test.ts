import { describe, expect, it } from 'vitest';
import { AcknowledgementFormatError, MAX_ACKNOWLEDGEMENT_LENGTH, readAcknowledgement } from './x12-acknowledgement.ts';

/** An ISA from the carrier back to us, 106 characters with its terminator. */
function isa(controlNumber: string, delimiters = { element: '*', component: ':', segment: '~' }): string {
  const e = delimiters.element;
  return (
    [
      'ISA',
      '00',
      ' '.repeat(10),
      '00',
      ' '.repeat(10),
      'ZZ',
      'CARRIER1       ',
      'ZZ',
      'BENEFITSCO     ',
      '261126',
      '0830',
      '^',
      '00501',
      controlNumber,
      '0',
      'T',
      delimiters.component,
    ].join(e) + delimiters.segment
  );
}

/** The 834 of interchange 000000042, group 7, transaction set 0012 accepted. */
const ACCEPTED = [
  isa('000000901'),
  'GS*FA*CARRIER1*BENEFITSCO*20261126*0830*901*X*005010X231A1~',
  'ST*999*0001*005010X231A1~',
  'AK1*BE*7*005010X220A1~',
  'AK2*834*0012*005010X220A1~',
  'IK5*A~',
  'AK9*A*1*1*1~',
  'SE*6*0001~',
  'GE*1*901~',
  'IEA*1*000000901~',
].join('\n');

/** Group 8's only transaction set rejected: a name element missing, a bad SSN, an invalid date, an unknown segment. */
const REJECTED = [
  isa('000000902'),
  'GS*FA*CARRIER1*BENEFITSCO*20261126*0831*902*X*005010X231A1~',
  'ST*999*0002*005010X231A1~',
  'AK1*BE*8*005010X220A1~',
  'AK2*834*0001*005010X220A1~',
  'IK3*NM1*12*2100A*8~',
  'CTX*SITUATIONAL TRIGGER*INS*9**8~',
  'IK4*3*1035*1~',
  'IK4*9*67*6*12345678~',
  'CTX*SITUATIONAL TRIGGER*NM1*12**8:1~',
  'IK3*DMG*14*2100A*8~',
  'IK4*2:1:2*1251*8*19802230~',
  'IK3*ZZZ*20**1~',
  'IK5*R*5*I5~',
  'AK9*R*1*1*0~',
  'SE*14*0002~',
  'GE*1*902~',
  'IEA*1*000000902~',
].join('\r\n');

/** Group 9 with two transaction sets: 0001 accepted with errors noted, 0002 rejected; the group partially accepted. */
const PARTIAL = [
  isa('000000903'),
  'GS*FA*CARRIER1*BENEFITSCO*20261126*0832*903*X*005010X231A1~',
  'ST*999*0003*005010X231A1~',
  'AK1*BE*9*005010X220A1~',
  'AK2*834*0001*005010X220A1~',
  'IK3*HD*30*2300*I9~',
  'IK5*E~',
  'AK2*834*0002*005010X220A1~',
  'IK5*R*4~',
  'AK9*P*2*2*1~',
  'SE*9*0003~',
  'GE*1*903~',
  'IEA*1*000000903~',
].join('');

/** Interchange 000000042 rejected: invalid sender id. */
const TA1_REJECTED = [isa('000000904'), 'TA1*000000042*261125*1405*R*006~', 'IEA*0*000000904~'].join('\n');

function formatError(text: unknown): AcknowledgementFormatError {
  try {
    readAcknowledgement(text as string);
  } catch (error) {
    expect(error).toBeInstanceOf(AcknowledgementFormatError);
    return error as AcknowledgementFormatError;
  }
  throw new Error('the text was read as an acknowledgement');
}

describe('readAcknowledgement: 999', () => {
  it('when a 999 accepts the group, then it names the group and transaction set it accepts', () => {
    const acknowledgement = readAcknowledgement(ACCEPTED);

    expect(acknowledgement.interchange).toEqual({
      senderQualifier: 'ZZ',
      senderId: 'CARRIER1',
      receiverQualifier: 'ZZ',
      receiverId: 'BENEFITSCO',
      controlNumber: '000000901',
      date: '261126',
      time: '0830',
      usage: 'T',
    });
    expect(acknowledgement.interchangeAcknowledgements).toEqual([]);
    expect(acknowledgement.groupAcknowledgements).toEqual([
      {
        envelope: { functionalIdentifier: 'FA', applicationSenderCode: 'CARRIER1', applicationReceiverCode: 'BENEFITSCO', controlNumber: '901' },
        acknowledgementControlNumber: '0001',
        functionalIdentifier: 'BE',
        groupControlNumber: '7',
        version: '005010X220A1',
        result: 'A',
        transactionSetsIncluded: 1,
        transactionSetsReceived: 1,
        transactionSetsAccepted: 1,
        errors: [],
        transactionSets: [
          { transactionSetId: '834', controlNumber: '0012', implementationReference: '005010X220A1', result: 'A', errors: [], segmentErrors: [] },
        ],
      },
    ]);
  });

  it('when a 999 rejects the transaction set, then its IK3, IK4 and IK5 codes are read with their names', () => {
    const [group] = readAcknowledgement(REJECTED).groupAcknowledgements;

    expect(group).toMatchObject({ groupControlNumber: '8', result: 'R', transactionSetsIncluded: 1, transactionSetsReceived: 1, transactionSetsAccepted: 0 });
    expect(group?.transactionSets).toEqual([
      {
        transactionSetId: '834',
        controlNumber: '0001',
        implementationReference: '005010X220A1',
        result: 'R',
        errors: [
          { code: '5', description: 'One or more segments in error' },
          { code: 'I5', description: 'Implementation one or more segments in error' },
        ],
        segmentErrors: [
          {
            segmentId: 'NM1',
            position: 12,
            loop: '2100A',
            error: { code: '8', description: 'Segment has data element errors' },
            elementErrors: [
              {
                position: 3,
                componentPosition: undefined,
                repetitionPosition: undefined,
                elementReference: '1035',
                error: { code: '1', description: 'Required data element missing' },
                badValue: undefined,
              },
              {
                position: 9,
                componentPosition: undefined,
                repetitionPosition: undefined,
                elementReference: '67',
                error: { code: '6', description: 'Invalid character in data element' },
                badValue: '12345678',
              },
            ],
          },
          {
            segmentId: 'DMG',
            position: 14,
            loop: '2100A',
            error: { code: '8', description: 'Segment has data element errors' },
            elementErrors: [
              {
                position: 2,
                componentPosition: 1,
                repetitionPosition: 2,
                elementReference: '1251',
                error: { code: '8', description: 'Invalid date' },
                badValue: '19802230',
              },
            ],
          },
          { segmentId: 'ZZZ', position: 20, loop: undefined, error: { code: '1', description: 'Unrecognized segment ID' }, elementErrors: [] },
        ],
      },
    ]);
  });

  it('when a 999 partially accepts the group, then each transaction set has its own result', () => {
    const [group] = readAcknowledgement(PARTIAL).groupAcknowledgements;

    expect(group).toMatchObject({ groupControlNumber: '9', result: 'P', transactionSetsIncluded: 2, transactionSetsReceived: 2, transactionSetsAccepted: 1 });
    expect(group?.transactionSets.map((set) => [set.controlNumber, set.result, set.errors.map((error) => error.code)])).toEqual([
      ['0001', 'E', []],
      ['0002', 'R', ['4']],
    ]);
    expect(group?.transactionSets[0]?.segmentErrors[0]?.error).toEqual({ code: 'I9', description: 'Implementation dependent "not used" segment present' });
  });

  it('when an error code is not in the dictionary here, then it is kept without a name', () => {
    const [group] = readAcknowledgement(PARTIAL.replace('IK5*R*4~', 'IK5*R*99~')).groupAcknowledgements;
    expect(group?.transactionSets[1]?.errors).toEqual([{ code: '99', description: undefined }]);
  });

  it('when the interchange declares other delimiters, then they are the ones read', () => {
    const text = [
      isa('000000905', { element: '|', component: '>', segment: '\n' }).trimEnd(),
      'GS|FA|CARRIER1|BENEFITSCO|20261126|0830|905|X|005010X231A1',
      'ST|999|0001|005010X231A1',
      'AK1|BE|7|005010X220A1',
      'AK2|834|0012|005010X220A1',
      'IK3|NM1|12|2100A|8',
      'IK4|3>1|1035|1',
      'IK5|R|5',
      'AK9|R|1|1|0',
      'SE|8|0001',
      'GE|1|905',
      'IEA|1|000000905',
      '',
    ].join('\n');
    const [group] = readAcknowledgement(text).groupAcknowledgements;
    expect(group?.transactionSets[0]?.segmentErrors[0]?.elementErrors[0]).toMatchObject({ position: 3, componentPosition: 1 });
  });

  it('when the 999 starts after white space or a byte order mark, then it is read', () => {
    expect(readAcknowledgement(`\uFEFF\r\n  ${ACCEPTED}\r\n\r\n`).groupAcknowledgements).toHaveLength(1);
  });

  it('when one interchange holds two groups of 999s, then every group is read', () => {
    const second = [
      'GS*FA*CARRIER1*BENEFITSCO*20261126*0830*906*X*005010X231A1~',
      'ST*999*0001*005010X231A1~',
      'AK1*BE*10*005010X220A1~',
      'AK9*A*0*0*0~',
      'SE*4*0001~',
      'GE*1*906~',
    ];
    const text = ACCEPTED.replace('IEA*1*000000901~', [...second, 'IEA*2*000000901~'].join('\n'));
    expect(readAcknowledgement(text).groupAcknowledgements.map((group) => group.groupControlNumber)).toEqual(['7', '10']);
  });
});

describe('readAcknowledgement: TA1', () => {
  it('when a TA1 rejects the interchange, then it names the interchange and the note code', () => {
    const acknowledgement = readAcknowledgement(TA1_REJECTED);

    expect(acknowledgement.groupAcknowledgements).toEqual([]);
    expect(acknowledgement.interchangeAcknowledgements).toEqual([
      {
        interchangeControlNumber: '000000042',
        interchangeDate: '261125',
        interchangeTime: '1405',
        result: 'R',
        note: { code: '006', description: 'Invalid interchange sender ID' },
      },
    ]);
  });

  it('when a TA1 accepts the interchange ahead of a 999, then both are read', () => {
    const text = ACCEPTED.replace('\nGS*', '\nTA1*000000042*261125*1405*A*000~\nGS*');
    const acknowledgement = readAcknowledgement(text);
    expect(acknowledgement.interchangeAcknowledgements[0]).toMatchObject({ result: 'A', note: { code: '000', description: 'No error' } });
    expect(acknowledgement.groupAcknowledgements).toHaveLength(1);
  });
});

describe('readAcknowledgement: malformed and hostile input', () => {
  it.each<[string, unknown]>([
    ['empty', ''],
    ['only white space', ' \r\n\t '],
    ['not text', 42],
    ['null', null],
    ['no ISA', ACCEPTED.slice(ACCEPTED.indexOf('GS*'))],
    ['an ISA too short to declare its delimiters', 'ISA*00*          *00*~'],
    ['letters as delimiters', isa('000000901', { element: 'x', component: ':', segment: '~' })],
    ['the same delimiter twice', isa('000000901', { element: '*', component: '*', segment: '~' })],
    ['an ISA13 that is not nine digits', ACCEPTED.replace('000000901', '00000901 ')],
    ['an ISA with too many elements', ACCEPTED.replace('*0*T*:~', '*0*T*X*:~')],
    ['a segment without an id', ACCEPTED.replace('IK5*A~', '*A~')],
    ['a lower-case segment id', ACCEPTED.replace('IK5*A~', 'ik5*A~')],
    ['an unknown segment in the 999', ACCEPTED.replace('IK5*A~', 'IK5*A~\nXYZ*1~')],
    ['a 997 instead of a 999', ACCEPTED.replace('ST*999', 'ST*997')],
    ['a group that is not FA', ACCEPTED.replace('GS*FA', 'GS*BE')],
    ['an AK2 without IK5', ACCEPTED.replace('IK5*A~\n', '').replace('SE*6', 'SE*5')],
    ['an unknown IK501', ACCEPTED.replace('IK5*A~', 'IK5*Q~')],
    ['an unknown AK901', ACCEPTED.replace('AK9*A', 'AK9*Z')],
    ['an AK9 count that is not a number', ACCEPTED.replace('AK9*A*1*1*1~', 'AK9*A*1*one*1~')],
    ['an IK4 without IK403', REJECTED.replace('IK4*3*1035*1~', 'IK4*3*1035~')],
    ['an IK401 that is not a number', REJECTED.replace('IK4*3*1035*1~', 'IK4*x*1035*1~')],
    ['an error code of four characters', PARTIAL.replace('IK5*R*4~', 'IK5*R*1234~')],
    ['SE01 miscounted', ACCEPTED.replace('SE*6*0001', 'SE*7*0001')],
    ['SE02 not ST02', ACCEPTED.replace('SE*6*0001', 'SE*6*0002')],
    ['GE01 miscounted', ACCEPTED.replace('GE*1*901', 'GE*2*901')],
    ['GE02 not GS06', ACCEPTED.replace('GE*1*901', 'GE*1*902')],
    ['IEA01 miscounted', ACCEPTED.replace('IEA*1*', 'IEA*2*')],
    ['IEA02 not ISA13', ACCEPTED.replace('IEA*1*000000901', 'IEA*1*000000900')],
    ['segments after the IEA', `${ACCEPTED}\nGS*FA*X*Y*20261126*0830*1*X*005010X231A1~`],
    ['a second interchange', `${ACCEPTED}\n${ACCEPTED}`],
    ['an interchange holding nothing', [isa('000000907'), 'IEA*0*000000907~'].join('')],
    ['a TA1 with an unknown TA104', TA1_REJECTED.replace('*R*006', '*Q*006')],
    ['a TA1 without TA105', TA1_REJECTED.replace('*R*006', '*R')],
    ['a TA101 that is not nine digits', TA1_REJECTED.replace('TA1*000000042', 'TA1*42')],
  ])('when the text is %s, then it is an AcknowledgementFormatError', (_case, text) => {
    expect(formatError(text).message).not.toBe('');
  });

  it('when the text is cut anywhere before its last terminator, then it is an AcknowledgementFormatError', () => {
    for (const text of [ACCEPTED, REJECTED, PARTIAL, TA1_REJECTED]) {
      for (let length = 0; length < text.lastIndexOf('~'); length += 1) formatError(text.slice(0, length));
    }
  });

  it('when the text is longer than the limit, then it is refused before it is read', () => {
    const huge = `${ACCEPTED}\n${' '.repeat(MAX_ACKNOWLEDGEMENT_LENGTH)}`;
    expect(formatError(huge).message).toMatch(/longer than/);
  });

  it('when a 999 just under the limit reports tens of thousands of errors, then it is read in one pass', () => {
    const errors = Array.from({ length: 40_000 }, (_, index) => `IK3*NM1*${index + 1}*2100A*8~`);
    const body = ['ST*999*0001*005010X231A1~', 'AK1*BE*7*005010X220A1~', 'AK2*834*0012*005010X220A1~', ...errors, 'IK5*R*5~', 'AK9*R*1*1*0~'];
    const text = [
      isa('000000908'),
      'GS*FA*CARRIER1*BENEFITSCO*20261126*0830*908*X*005010X231A1~',
      ...body,
      `SE*${body.length + 1}*0001~`,
      'GE*1*908~',
      'IEA*1*000000908~',
    ].join('');
    expect(text.length).toBeLessThan(MAX_ACKNOWLEDGEMENT_LENGTH);

    expect(readAcknowledgement(text).groupAcknowledgements[0]?.transactionSets[0]?.segmentErrors).toHaveLength(40_000);
  });

  it('when a valid 999 is mutated at random, then each result is an acknowledgement or an AcknowledgementFormatError, never a crash', () => {
    // A fixed linear congruential generator: the same mutations on every run.
    let seed = 20_261_126;
    const random = (below: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % below;
    };
    const alphabet = ['*', '~', ':', '^', '\n', '\r', ' ', 'A', 'Z', '0', '9', 'IK3', 'IK4', 'AK2', 'SE', 'ISA', '', '\u0000', 'é'];
    for (const base of [ACCEPTED, REJECTED, PARTIAL, TA1_REJECTED]) {
      for (let round = 0; round < 1_500; round += 1) {
        let text = base;
        for (let edit = 0, edits = 1 + random(3); edit < edits; edit += 1) {
          const at = random(text.length + 1);
          const cut = random(4);
          text = text.slice(0, at) + (alphabet[random(alphabet.length)] ?? '') + text.slice(at + cut);
        }
        try {
          readAcknowledgement(text);
        } catch (error) {
          expect(error, JSON.stringify(text)).toBeInstanceOf(AcknowledgementFormatError);
        }
      }
    }
  });
});
