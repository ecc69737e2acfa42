// The worker of page-carrier.ts: links the carried pages of each page-inputs file it is sent, in turn.
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { fileLines } from '../src/artifacts/file-lines.ts';
import { carryFileSync } from './site-writer.ts';
import { variantSuffixes, type FromPageCarrierWorker, type ToPageCarrierWorker } from './page-carrier.ts';

const port = parentPort!;
const { from, to } = workerData as { from: string; to: string };
const answer = (message: FromPageCarrierWorker) => port.postMessage(message);

port.on('message', ({ inputs }: ToPageCarrierWorker) => {
  const started = performance.now();
  try {
    let carried = 0;
    // Pages share a few folders (listings/, owners/): each is made once, not once a page.
    const made = new Set<string>();
    // A line at a time: an incremental build's one share holds every page of the catalog.
    for (const line of fileLines(inputs)) {
      const [file, , , render, variants] = line.toString().split('\t');
      if (!file || render !== '0') continue;
      const target = join(to, file);
      const folder = dirname(target);
      if (!made.has(folder)) {
        mkdirSync(folder, { recursive: true });
        made.add(folder);
      }
      carryFileSync(join(from, file), target, ['', ...variantSuffixes(variants)]);
      carried++;
    }
    answer({ inputs, carried, seconds: (performance.now() - started) / 1000 });
  } catch (error) {
    answer({ inputs, failed: error instanceof Error ? error.message : String(error) });
  }
});
