import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/test-app.ts';

/**
 * docs/getting-started.md, run as written (issue 31, "Reference"): each `curl` of its ```sh blocks is sent to the
 * test app, with `$BASE`, `$KEY` and the variables earlier steps captured (`NAME=$(curl ... | jq -r .id`)
 * substituted in its path and its `--json @- <<JSON` body, and must answer the status of the `# NNN` comment above
 * it. The test clock stands on 2026-03-02, inside the document's open enrollment window.
 */
const DOCUMENT = readFileSync(new URL('../../docs/getting-started.md', import.meta.url), 'utf8');

interface Step {
  expected: number;
  method: string;
  path: string;
  body: string | undefined;
  capture: { name: string; filter: string } | undefined;
  source: string;
}

/** The steps of the ```sh blocks, in order; throws on a command it cannot read, so the document stays runnable. */
function stepsOf(markdown: string): Step[] {
  const blocks = [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!.split('\n'));
  const steps: Step[] = [];
  for (const lines of blocks) {
    let expected: number | undefined;
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!.trim();
      const status = /^# (\d{3})$/.exec(line);
      if (status) {
        expected = Number(status[1]);
        continue;
      }
      if (line === '' || line.startsWith('#') || /^(BASE|KEY)=/.test(line)) continue;
      if (!line.includes('curl ')) throw new Error(`getting-started.md: not a curl step: ${line}`);
      if (expected === undefined) throw new Error(`getting-started.md: no "# <status>" above: ${line}`);
      let body: string | undefined;
      if (line.includes('<<JSON')) {
        const end = lines.indexOf('JSON', i + 1);
        if (end < 0) throw new Error(`getting-started.md: unterminated body after: ${line}`);
        body = lines.slice(i + 1, end).join('\n');
        i = end;
        if (lines[i + 1]?.trim() === ')') i++;
      }
      const url = /"\$BASE([^"]*)"/.exec(line);
      if (!url) throw new Error(`getting-started.md: no "$BASE/..." URL: ${line}`);
      const method = /-X (\w+)/.exec(line)?.[1] ?? (line.includes('--json') ? 'POST' : 'GET');
      const assignment = /^([A-Z_]+)=\$\(curl /.exec(line);
      const filter = /\| jq -r '?([^' )]+)'?/.exec(line)?.[1];
      if (assignment && filter === undefined) throw new Error(`getting-started.md: a capture without jq -r: ${line}`);
      steps.push({
        expected,
        method,
        path: url[1]!,
        body,
        capture: assignment ? { name: assignment[1]!, filter: filter! } : undefined,
        source: line,
      });
      expected = undefined;
    }
  }
  return steps;
}

/** jq's `.a.b[0].c`, the subset the document uses. */
function select(value: unknown, filter: string): unknown {
  let current: any = value;
  for (const part of filter.match(/\.[a-z_]+|\[\d+\]/g) ?? []) {
    current = part.startsWith('[') ? current?.[Number(part.slice(1, -1))] : current?.[part.slice(1)];
  }
  return current;
}

function substitute(text: string, variables: Map<string, string>): string {
  return text.replace(/\$([A-Z_]+)/g, (whole, name: string) => {
    const value = variables.get(name);
    if (value === undefined) throw new Error(`getting-started.md: $${name} is used before a step sets it`);
    return value;
  });
}

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp({ now: '2026-03-02T15:00:00.000Z' });
});
afterAll(async () => {
  await t.close();
});

describe('docs/getting-started.md', () => {
  it('when its steps are run as written, then each answers the status it shows, from an employer to an approved enrollment', async () => {
    const steps = stepsOf(DOCUMENT);
    expect(steps.length).toBeGreaterThanOrEqual(15);
    const variables = new Map<string, string>();
    const answers = new Map<string, any>();
    for (const step of steps) {
      const path = substitute(step.path, variables);
      const body = step.body === undefined ? undefined : (JSON.parse(substitute(step.body, variables)) as unknown);
      const response = await t.admin.request(step.method, path, body === undefined ? {} : { body });
      expect(response.status, `${step.source}\n${response.text}`).toBe(step.expected);
      answers.set(`${step.method} ${step.path}`, response.body);
      if (step.capture) {
        const captured = select(response.body, step.capture.filter);
        expect(typeof captured, `${step.source} captures ${step.capture.filter}`).toBe('string');
        variables.set(step.capture.name, captured as string);
      }
    }
    // The walkthrough ends where it says: approved, the carrier's change recorded and completed, events written.
    expect(answers.get('POST /enrollments/$ENROLLMENT/approve')).toMatchObject({ status: 'approved' });
    expect(answers.get('PATCH /benefit_changes/$CHANGE')).toMatchObject({ delivery_state: 'completed', status: 'new' });
    const types = (answers.get('GET /events?object_id=$ENROLLMENT') as { results: { event_type: string }[] }).results.map((e) => e.event_type);
    expect(types).toEqual(expect.arrayContaining(['enrollment.created', 'enrollment.submitted', 'enrollment.approved']));
  });

  it('when the README is read, then it links the walkthrough', () => {
    expect(readFileSync(new URL('../../README.md', import.meta.url), 'utf8')).toContain('(docs/getting-started.md)');
  });
});
