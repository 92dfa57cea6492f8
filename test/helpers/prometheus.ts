/**
 * A strict reader of the Prometheus text exposition format (version 0.0.4): every line must be a HELP, a TYPE or a
 * sample of a family declared before it, or the read throws naming the line. For tests that scrape /metrics.
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  help: string;
}

export interface Exposition {
  families: Map<string, Family>;
  samples: Sample[];
  /** The value of the sample with this name and exactly these labels (undefined when absent). */
  value(name: string, labels?: Record<string, string>): number | undefined;
}

const METRIC_NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABEL_NAME = '[a-zA-Z_][a-zA-Z0-9_]*';
const LABEL_VALUE = '"(?:[^"\\\\\\n]|\\\\["\\\\n])*"';
const HELP = new RegExp(`^# HELP (${METRIC_NAME}) (.*)$`);
const TYPE = new RegExp(`^# TYPE (${METRIC_NAME}) (counter|gauge|histogram|summary|untyped)$`);
const SAMPLE = new RegExp(`^(${METRIC_NAME})(?:\\{((?:${LABEL_NAME}=${LABEL_VALUE})(?:,${LABEL_NAME}=${LABEL_VALUE})*)?,?\\})? (\\S+)(?: -?\\d+)?$`);
const LABEL = new RegExp(`(${LABEL_NAME})=(${LABEL_VALUE})`, 'g');
// Prometheus reads the special values as Go's ParseFloat does, whatever their case: prom-client writes an empty
// summary's mean (the event loop lag before its first sample) as "Nan".
const VALUE = /^(?:[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|[+-]?inf|nan)$/i;

/** The family a sample belongs to: a histogram's _bucket, _sum and _count belong to its own name. */
function familyOf(name: string, families: Map<string, Family>): Family | undefined {
  const direct = families.get(name);
  if (direct) return direct;
  const base = name.replace(/_(bucket|sum|count)$/, '');
  const family = families.get(base);
  return family && (family.type === 'histogram' || family.type === 'summary') ? family : undefined;
}

export function parseExposition(text: string): Exposition {
  const families = new Map<string, Family>();
  const helps = new Map<string, string>();
  const samples: Sample[] = [];
  for (const [index, line] of text.split('\n').entries()) {
    if (line === '') continue;
    const where = `line ${index + 1}: ${line}`;
    const help = HELP.exec(line);
    if (help) {
      helps.set(help[1]!, help[2]!);
      continue;
    }
    const type = TYPE.exec(line);
    if (type) {
      if (families.has(type[1]!)) throw new Error(`second TYPE for ${type[1]} at ${where}`);
      families.set(type[1]!, { name: type[1]!, type: type[2] as Family['type'], help: helps.get(type[1]!) ?? '' });
      continue;
    }
    if (line.startsWith('#')) throw new Error(`not a HELP or TYPE comment at ${where}`);
    const sample = SAMPLE.exec(line);
    if (!sample) throw new Error(`not a sample at ${where}`);
    const [, name = '', labelText = '', valueText = ''] = sample;
    if (!VALUE.test(valueText)) throw new Error(`not a number at ${where}`);
    if (!familyOf(name, families)) throw new Error(`a sample before its TYPE at ${where}`);
    const labels: Record<string, string> = {};
    for (const [, labelName = '', quoted = ''] of labelText.matchAll(LABEL)) {
      labels[labelName] = JSON.parse(quoted) as string;
    }
    samples.push({ name, labels, value: Number(valueText.replace(/^\+?Inf$/, 'Infinity').replace(/^-Inf$/, '-Infinity')) });
  }
  return {
    families,
    samples,
    value: (name, labels = {}) => {
      const wanted = JSON.stringify(Object.entries(labels).sort());
      return samples.find((sample) => sample.name === name && JSON.stringify(Object.entries(sample.labels).sort()) === wanted)?.value;
    },
  };
}
