// `npm run catalog -- <command>`: the command-line tool for builds and the daily cycle.
// Exit codes: 0 success, 1 failure, 2 invalid records (ingest refused), 64 usage error.
import { Command, CommanderError } from 'commander';
import { loadConfig } from '../server/config.ts';
import { IngestError } from './ingest.ts';
import { runBuild } from './pipeline.ts';

export const EXIT = { ok: 0, failed: 1, invalidRecords: 2, usage: 64 } as const;

const program = new Command()
  .name('catalog')
  .description('Build and maintain the catalog: ingest snapshot exports, build the static site and the search index.')
  .exitOverride();

program
  .command('build')
  .description('ingest the configured export (CATALOG_EXPORT) and run the full build, then switch to it')
  .option('--export <path>', 'snapshot export to ingest (JSON Lines)')
  .option('--no-ingest', 'build from the existing database without ingesting')
  .option('--skip-invalid', 'ingest the valid records and write the rejects to a file')
  .option('--rejects <path>', 'where --skip-invalid writes the rejected records', 'rejects.jsonl')
  .option('--quiet', 'no progress bars')
  .option('--report', 'print a JSON line with stage timings and peak memory (for benchmarks)')
  .action(async (opts: { export?: string; ingest: boolean; skipInvalid?: boolean; rejects: string; quiet?: boolean; report?: boolean }) => {
    const config = loadConfig();
    const result = await runBuild({
      dataDir: config.dataDir,
      exportPath: opts.ingest ? (opts.export ?? config.exportPath) : undefined,
      baseUrl: config.baseUrl,
      skipInvalid: opts.skipInvalid,
      rejectsPath: opts.skipInvalid ? opts.rejects : undefined,
      quiet: opts.quiet,
    });
    console.log(`built ${result.runtime.count} listings into ${result.buildDir}`);
    if (opts.report) console.log(JSON.stringify({ timings: result.timings, maxRssKB: process.resourceUsage().maxRSS }));
  });

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) process.exit(error.exitCode === 0 ? EXIT.ok : EXIT.usage);
  if (error instanceof IngestError) {
    for (const reject of error.rejects.slice(0, 50)) console.error(`${reject.file}:${reject.line}: ${reject.reason}`);
    if (error.rejects.length > 50) console.error(`… and ${error.rejects.length - 50} more`);
    console.error(error.message);
    process.exit(EXIT.invalidRecords);
  }
  console.error(error instanceof Error ? error.message : error);
  process.exit(EXIT.failed);
}
