// The carrier channel clients of the hostile-clients scenario (run by bench/hostile-attacker.js): the requests of
// the SSRF client, and the 999 acknowledgements of the spoofer, each a carrier's 999 for a delivered file with
// one or two elements changed so that it is not for that file (docs/decisions.md, Carrier EDI: what a 999 must
// match). The scenario sends the unchanged 999 last, as the control that a well-formed one still settles a file.

/** Internal addresses as a client would write them (docs/decisions.md, Carrier EDI and Webhooks). */
export const INTERNAL_HOSTS = ['127.0.0.1', '::1', '[::1]', '[::ffff:127.0.0.1]', '169.254.169.254', '10.0.0.1', '[fe80::1]', '0.0.0.0', 'localhost'];
const FINGERPRINT = `SHA256:${'A'.repeat(42)}8`;

/** The SSRF client's requests, each { name, method, path, body } (an EDI profile or a webhook endpoint). */
export function ssrfRequests(group) {
  const profile = (host, port) => ({
    interchange_sender: { qualifier: 'ZZ', id: 'PROBE' },
    interchange_receiver: { qualifier: 'ZZ', id: 'INTERNAL' },
    application_sender_code: 'PROBE',
    application_receiver_code: 'INTERNAL',
    sponsor: { name: 'Probe Inc', tax_id: '123456789' },
    payer: { name: 'Internal', id: '987654321' },
    delivery: { method: 'sftp', host, port, username: 'probe', host_key_fingerprint: FINGERPRINT, inbound_directory: '/in', password: 'probe-password' },
  });
  const urlHost = (host) => (host.includes(':') && !host.startsWith('[') ? `[${host}]` : host);
  const requests = [];
  for (const host of INTERNAL_HOSTS) {
    for (const port of [22, 6379]) {
      requests.push({ name: `sftp ${host}:${port}`, method: 'PUT', path: `/groups/${group}/edi_profile`, body: profile(host, port) });
    }
    for (const port of ['', ':6379']) {
      const url = `https://${urlHost(host)}${port}/hook`;
      requests.push({ name: `webhook ${url}`, method: 'POST', path: '/webhook_endpoints', body: { url, enabled_events: ['*'] } });
    }
  }
  // A public name on a port that is not SFTP's (22, 2222).
  requests.push({ name: 'sftp sftp.carrier.example:6379', method: 'PUT', path: `/groups/${group}/edi_profile`, body: profile('sftp.carrier.example', 6379) });
  return requests;
}

/** The carrier's own control numbers (ISA13, GS06): a new one for every 999, as a carrier numbers them. */
let carrierControlNumber = 900;

/**
 * A 999 for a file as its carrier sends it (ISA06/GS02 the carrier, ISA08/GS03 us; AK1*BE with the file's GS06;
 * AK2*834*0001), with `overrides` of single elements.
 */
export function ack999(file, profile, overrides = {}) {
  carrierControlNumber = (carrierControlNumber % 999_999_999) + 1;
  const control = String(carrierControlNumber);
  const element = { isa06: profile.receiver.id, isa08: profile.sender.id, gs01: 'FA', gs02: profile.applicationReceiver, gs03: profile.applicationSender };
  Object.assign(element, { ak101: 'BE', ak102: String(file.group_control_number), ak201: '834', ak202: '0001', ik501: 'A', ak901: 'A' }, overrides);
  const isa = [
    'ISA',
    '00',
    ' '.repeat(10),
    '00',
    ' '.repeat(10),
    profile.receiver.qualifier,
    element.isa06.padEnd(15),
    profile.sender.qualifier,
    element.isa08.padEnd(15),
  ];
  isa.push('260302', '1500', '^', '00501', control.padStart(9, '0'), '0', 'T', ':');
  const body = [
    'ST*999*0001*005010X231A1',
    `AK1*${element.ak101}*${element.ak102}*005010X220A1`,
    `AK2*${element.ak201}*${element.ak202}*005010X220A1`,
    `IK5*${element.ik501}`,
    `AK9*${element.ak901}*1*1*${element.ak901 === 'R' ? 0 : 1}`,
  ];
  return [
    `${isa.join('*')}~`,
    `GS*${element.gs01}*${element.gs02}*${element.gs03}*20260302*1500*${control}*X*005010X231A1~`,
    ...body.map((segment) => `${segment}~`),
    `SE*${body.length + 1}*0001~`,
    `GE*1*${control}~`,
    `IEA*1*${control.padStart(9, '0')}~`,
  ].join('\n');
}

/**
 * The spoofs: 999s that name a delivered file but are not for it, each `(file) => overrides` of ack999 (one or two
 * elements changed from the 999 that is the file's).
 */
export const ACK_SPOOFS = {
  other_transaction_set_837: () => ({ ak101: 'HC', ak201: '837' }),
  other_functional_identifier: () => ({ ak101: 'HC' }),
  other_transaction_set: () => ({ ak201: '837' }),
  other_interchange_receiver: () => ({ isa08: 'SOMEONEELSE' }),
  other_interchange_sender: () => ({ isa06: 'OTHERCARRIER' }),
  other_application_receiver: () => ({ gs03: 'SOMEONEELSE' }),
  other_application_sender: () => ({ gs02: 'OTHERCARRIER' }),
  control_number_plus: (file) => ({ ak102: `+${file.group_control_number}` }),
  control_number_decimal: (file) => ({ ak102: `${file.group_control_number}.0` }),
  control_number_hex: (file) => ({ ak102: `0x${file.group_control_number.toString(16)}` }),
  control_number_exponent: (file) => ({ ak102: `${file.group_control_number}e0` }),
  rejected_other_set: () => ({ ak202: '0002', ik501: 'R', ak901: 'R' }),
};
