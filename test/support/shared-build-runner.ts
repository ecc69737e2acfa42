// Child process of the global setup: builds the embedded snapshot that most test files share, then leaves its
// outcome in the status file the files wait on (shared-build.ts). Usage: node shared-build-runner.ts <dataDir> <statusFile>
import { renameSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { runBuild } from '../../build/build-pipeline.ts';
import { TEST_BASE_URL } from './test-base-url.ts';

const [dataDir, statusFile] = process.argv.slice(2);
if (!dataDir || !statusFile) throw new Error('usage: node shared-build-runner.ts <dataDir> <statusFile>');

const report = (status: { buildDir: string } | { error: string }) => {
  // Written whole, then renamed: a reader never sees half a status.
  writeFileSync(`${statusFile}.tmp`, JSON.stringify(status));
  renameSync(`${statusFile}.tmp`, statusFile);
};

try {
  const { buildDir } = await runBuild({ dataDir, exportPath: resolve('data/listings.jsonl'), baseUrl: TEST_BASE_URL, quiet: true });
  report({ buildDir });
} catch (error) {
  report({ error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  process.exitCode = 1;
}
