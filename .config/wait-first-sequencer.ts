import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The order files start in (issue #39 item 9). vitest's own order runs the projects one after another in name order
 * (browser, integration, unit), each longest first (largest first on a fresh clone, which has no timings yet), so the
 * two longest files of the run, the cluster crash test and the key backup drill, started only once the browser files
 * were done, minutes in, and mostly waited beside nothing that needed the CPU.
 *
 * This order starts the LEAD longest integration files first (on a fresh clone the largest: those two), then the
 * browser files beside them, then the other integration files, and the many short unit files last, where they fill
 * whatever the cores have left until the end. A worker serves one project, so the projects stay in blocks: each
 * change of block starts new workers.
 */
export const LEAD = 2;

export default class WaitFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const of = (project: string) => sorted.filter((spec) => spec.project.name === project);
    const integration = of('integration');
    const rest = sorted.filter((spec) => !['integration', 'browser', 'unit'].includes(spec.project.name));
    return [...integration.slice(0, LEAD), ...of('browser'), ...integration.slice(LEAD), ...of('unit'), ...rest];
  }
}
