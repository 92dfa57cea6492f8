import { describe, expect, it } from 'vitest';
import { foldToX12, x12FoldedTextProblem, x12TextProblem } from './x12-text.ts';

describe('text an 834 can carry (X12.6 basic and extended character sets, less the delimiters * ~ : ^)', () => {
  it.each([
    ['José', 'Jose'],
    ['Zoë Ångström', 'Zoe Angstrom'],
    ['Łukasz Øster', 'Lukasz Oster'],
    ['Weiß', 'Weiss'],
    ['Æbelø', 'AEbelo'],
    ['O’Brien', "O'Brien"],
    ['Smith–Jones', 'Smith-Jones'],
    ['  Mary   Ann ', 'Mary Ann'],
    ['Ｓｍｉｔｈ', 'Smith'],
    ['\uFEFFAnn\u200B Lee\u202E', 'Ann Lee'],
  ])('when a name is %s, then it is written %s and accepted', (name, folded) => {
    expect(foldToX12(name)).toBe(folded);
    expect(x12TextProblem(name)).toBeUndefined();
    expect(x12FoldedTextProblem(foldToX12(name))).toBeUndefined();
  });

  it.each(['Smith*Jones', 'Ann~', 'Apt: 4', 'Lee^2'])('when a value holds a delimiter (%s), then it is refused naming the delimiters', (value) => {
    expect(x12TextProblem(value)).toMatch(/\* ~ : \^/);
  });

  it.each(['山田', 'Иванов', 'محمد', 'Ann\u0007'])(
    'when a value holds characters of another script or a control character (%s), then it is refused',
    (value) => {
      expect(x12TextProblem(value)).toMatch(/outside the X12 character set/);
    },
  );
});
