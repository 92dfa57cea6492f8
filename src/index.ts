export { main } from './cli.ts';
