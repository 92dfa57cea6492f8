// Types of carrier-channel.js for the TypeScript tests that run it (test/api/bench-hostile-clients.test.ts).

export const INTERNAL_HOSTS: readonly string[];

export function ssrfRequests(group: string): { name: string; method: 'PUT' | 'POST'; path: string; body: Record<string, unknown> }[];

export interface AcknowledgedFile {
  id: string;
  group_control_number: number;
}

export interface TradingPartner {
  sender: { qualifier: string; id: string };
  receiver: { qualifier: string; id: string };
  applicationSender: string;
  applicationReceiver: string;
}

export function ack999(file: AcknowledgedFile, profile: TradingPartner, overrides?: Record<string, string>): string;

export const ACK_SPOOFS: Record<string, (file: AcknowledgedFile) => Record<string, string>>;
