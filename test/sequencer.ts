import { BaseSequencer } from 'vitest/node'
import type { TestSpecification } from 'vitest/node'

/**
 * The test files that run longest (CI on 2 cores, seconds in parentheses), longest first. vitest orders files by
 * the durations of its last run, but a clean clone has none and runs them in path order, which started the longest
 * e2e file (verification, 388 s) last of eleven on two workers: four minutes of one worker alone at the end.
 */
const LONGEST = [
  'test/e2e/verification.test.ts', // 388
  'test/e2e/restart.test.ts', // 207
  'test/e2e/detach.test.ts', // 172
  'test/e2e/cheater.test.ts', // 168
  'test/e2e/faults.test.ts', // 129
  'packages/peer/test/settlement/probes.test.ts', // 35
  'packages/peer/test/settlement/settlement.test.ts', // 34
  'packages/dapp-sdk/test/release.test.ts' // 22
]

function rank (file: TestSpecification): number {
  const i = LONGEST.findIndex(p => file.moduleId.endsWith(p))
  return i < 0 ? LONGEST.length : i
}

/** vitest's order (project groups first, then its cached durations), with the known longest files of a group first. */
export default class LongestFirstSequencer extends BaseSequencer {
  override async sort (files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files)
    return sorted.sort((a, b) => (a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder) || (rank(a) - rank(b)))
  }
}
