// Prints the plain closing line CI reads ("N passed, N failed, N skipped") after vitest's own summary.
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
      // A file that crashed or failed outside its tests (a hook, an unhandled error) is a failure too.
      if (module.state() === 'failed' && ![...module.children.allTests()].some((test) => test.result().state === 'failed')) failed++;
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
