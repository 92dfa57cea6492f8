// Every scenario `npm run bench` runs, in order. A scenario module exports:
//   name         the command-line name (node bench/run.js <name>)
//   key          its key in the final JSON line
//   description  one line for the summary
//   run({ service, settings, kinds, log })  -> a JSON-serializable result; per database kind, a
//                comparison made by lib/bench.js compare() is summarized automatically.
import * as carriersGet from './carriers-get.js';

export const SCENARIOS = [carriersGet];
