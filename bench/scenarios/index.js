// Every scenario `npm run bench` runs, in order. A scenario module exports:
//   name         the command-line name (node bench/run.js <name>)
//   key          its key in the final JSON line
//   description  one line for the summary
//   run({ service, settings, kinds, log })  -> a JSON-serializable result; per database kind, either a
//                comparison made by lib/bench.js compare() or { data, measurements, figures, targets } (see
//                lib/report.js) is summarized automatically.
import * as beneficiariesDepth from './beneficiaries-depth.js';
import * as carriersGet from './carriers-get.js';
import * as census from './census.js';
import * as ediFiles from './edi-files.js';
import * as enrollmentApprovals from './enrollment-approvals.js';
import * as hostileClients from './hostile-clients.js';
import * as notificationsFilter from './notifications-filter.js';
import * as openEnrollmentScale from './open-enrollment-scale.js';
import * as payroll from './payroll.js';
import * as planYear from './plan-year.js';
import * as premiumBill from './premium-bill.js';
import * as webhooksDelivery from './webhooks-delivery.js';

export const SCENARIOS = [
  carriersGet,
  beneficiariesDepth,
  notificationsFilter,
  enrollmentApprovals,
  openEnrollmentScale,
  ediFiles,
  premiumBill,
  census,
  webhooksDelivery,
  hostileClients,
  payroll,
  planYear,
];
