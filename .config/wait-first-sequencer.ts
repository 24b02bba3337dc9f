import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The order files start in (issue #39 item 9). vitest's own order runs the longest files first (the largest on a fresh
 * clone, which has no timings yet), whatever they do, so the two longest files of the run, the cluster crash test and
 * the key backup drill, which mostly wait on child processes and devnet blocks, could start after minutes of browser
 * files and then wait beside nothing that needed the CPU.
 *
 * This order starts the LEAD longest integration files first (on a fresh clone the largest: those two), then the
 * browser files beside them, then the other integration files, and the many short unit files last, where they fill
 * whatever the cores have left until the end. The kind of a file is in its name: `*.integration.test.ts`,
 * `*.browser.test.ts`, else a unit file.
 */
export const LEAD = 2;

export type FileKind = 'integration' | 'browser' | 'unit';

export function kindOf(file: string): FileKind {
  return file.endsWith('.integration.test.ts') ? 'integration' : file.endsWith('.browser.test.ts') ? 'browser' : 'unit';
}

export default class WaitFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const of = (kind: FileKind) => sorted.filter((spec) => kindOf(spec.moduleId) === kind);
    const integration = of('integration');
    return [...integration.slice(0, LEAD), ...of('browser'), ...integration.slice(LEAD), ...of('unit')];
  }
}
