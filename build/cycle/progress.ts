// One progress bar for the CLI's long steps, drawn on stderr only when it is a terminal and --quiet is not
// given, so pipes, cron mail and CI logs get the summary lines and nothing else.
import cliProgress from 'cli-progress';

export interface Progress {
  update(done: number, total: number): void;
  stop(): void;
}

export function progressBar(label: string, quiet: boolean | undefined): Progress {
  if (quiet || !process.stderr.isTTY) return { update: () => undefined, stop: () => undefined };
  const bar = new cliProgress.SingleBar(
    { format: `${label.padEnd(10)} [{bar}] {percentage}% {value}/{total} {duration_formatted}`, hideCursor: true, stream: process.stderr },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update(done, total) {
      if (!started) {
        bar.start(total, done);
        started = true;
      }
      bar.setTotal(total);
      bar.update(done);
    },
    stop() {
      if (started) bar.stop();
    },
  };
}
