// The worker of page-carrier.ts: links the carried pages of each page-inputs file it is sent, in turn.
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { carryFileSync } from './site-writer.ts';
import { variantSuffixes, type FromPageCarrierWorker, type ToPageCarrierWorker } from './page-carrier.ts';

const port = parentPort!;
const { from, to } = workerData as { from: string; to: string };
const answer = (message: FromPageCarrierWorker) => port.postMessage(message);

port.on('message', ({ inputs }: ToPageCarrierWorker) => {
  const started = performance.now();
  try {
    let carried = 0;
    // One share's lines (a share holds at most LISTINGS_PER_SHARE listings' pages): a few MB.
    for (const line of readFileSync(inputs, 'utf8').split('\n')) {
      const [file, , , render, variants] = line.split('\t');
      if (!file || render !== '0') continue;
      const target = join(to, file);
      mkdirSync(dirname(target), { recursive: true });
      carryFileSync(join(from, file), target, ['', ...variantSuffixes(variants)]);
      carried++;
    }
    answer({ inputs, carried, seconds: (performance.now() - started) / 1000 });
  } catch (error) {
    answer({ inputs, failed: error instanceof Error ? error.message : String(error) });
  }
});
