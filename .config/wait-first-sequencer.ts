import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The order files start in (issue #39 item 9). vitest's own order runs the longest files first (the largest on a fresh
 * clone, which has no timings yet), whatever they do, so the two longest files of the run, the cluster crash test and
 * the key backup drill, which mostly wait on child processes and devnet blocks, could start after minutes of browser
 * files and then wait beside nothing that needed the CPU.
 *
 * This order starts the LEAD longest integration files first (on a fresh clone the largest: those two), then the
 * browser files beside them, then the other integration files spread through the first half of the many short unit
 * files, and the other half last. Most of those integration files wait on an `npm start` or `npm run serve` child and on devnet blocks in real time: run one after
 * another, they once held all five workers at once for 35 s while the cores idled (a timeline of the run showed it);
 * spread out, the unit files beside them use the cores. The kind of a file is in its name: `*.integration.test.ts`,
 * `*.browser.test.ts`, else a unit file.
 */
export const LEAD = 2;

/**
 * The share of the unit files the other integration files are spread through; the rest come last, short files that
 * end together. On a fresh clone the order within a kind is by file size, not by time, so an integration file that
 * waits 20 s on an `npm start` child could otherwise start among the last files and end alone.
 */
export const SPREAD = 0.5;

export type FileKind = 'integration' | 'browser' | 'unit';

export function kindOf(file: string): FileKind {
  return file.endsWith('.integration.test.ts') ? 'integration' : file.endsWith('.browser.test.ts') ? 'browser' : 'unit';
}

/**
 * `waiting` (longest first) spread evenly through `filling` (longest first): one waiting file, then the share of
 * filling files that comes before the next, so that no stretch of the run has every worker waiting at once.
 */
export function interleave<T>(waiting: readonly T[], filling: readonly T[]): T[] {
  const out: T[] = [];
  let used = 0;
  waiting.forEach((file, i) => {
    out.push(file);
    const upTo = Math.round(((i + 1) * filling.length) / waiting.length);
    out.push(...filling.slice(used, upTo));
    used = upTo;
  });
  return [...out, ...filling.slice(used)];
}

export default class WaitFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const of = (kind: FileKind) => sorted.filter((spec) => kindOf(spec.moduleId) === kind);
    const integration = of('integration');
    const unit = of('unit');
    const spread = Math.round(unit.length * SPREAD);
    return [...integration.slice(0, LEAD), ...of('browser'), ...interleave(integration.slice(LEAD), unit.slice(0, spread)), ...unit.slice(spread)];
  }
}
