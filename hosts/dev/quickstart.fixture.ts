/**
 * The quickstart block as a user pastes it out of `npm start`'s output: from its `BASE=` line to the first blank line.
 * Test support beside the tests (kept out of the package by its name).
 */
export function quickstartBlock(lines: readonly string[]): string {
  const start = lines.findIndex((line) => line.startsWith('BASE='));
  if (start < 0) throw new Error('no BASE= line in the output');
  const end = lines.indexOf('', start);
  return lines.slice(start, end < 0 ? undefined : end).join('\n');
}
