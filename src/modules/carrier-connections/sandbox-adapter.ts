import type { CarrierAdapter, CarrierChange, CarrierOutcome } from './carrier-adapter.ts';

export class SandboxTransientError extends Error {
  override name = 'SandboxTransientError';
}

/**
 * A carrier that needs no account, steered by its group's metadata: it accepts every change (reference
 * `sandbox-<benefit change id>`), unless `sandbox_reject` is set (refused, with that text as the reason);
 * `sandbox_transient_failures: "N"` makes the first N attempts of each change throw, so that retries can be
 * seen. Attempts are counted in this process's memory.
 */
export class SandboxCarrierAdapter implements CarrierAdapter {
  readonly #attempts = new Map<string, number>();

  async send(change: CarrierChange): Promise<CarrierOutcome> {
    const failures = /^\d+$/.test(change.groupMetadata.sandbox_transient_failures ?? '') ? Number(change.groupMetadata.sandbox_transient_failures) : 0;
    const attempt = (this.#attempts.get(change.benefitChange) ?? 0) + 1;
    if (attempt <= failures) {
      this.#attempts.set(change.benefitChange, attempt);
      throw new SandboxTransientError(`Sandbox carrier: simulated transient failure ${attempt} of ${failures}.`);
    }
    this.#attempts.delete(change.benefitChange);
    const reason = change.groupMetadata.sandbox_reject;
    if (reason) return { accepted: false, reason };
    return { accepted: true, reference: `sandbox-${change.benefitChange}` };
  }
}
