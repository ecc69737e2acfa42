// The worker of keyword-index-thread.ts: one KeywordIndexBuilder, fed in the order the messages come.
import { parentPort } from 'node:worker_threads';
import { KeywordIndexBuilder } from '../src/search/index-builder.ts';
import { writeKeywordIndex } from '../src/search/index-file.ts';
import type { FromKeywordIndexWorker, ToKeywordIndexWorker } from './keyword-index-thread.ts';

const port = parentPort!;
const builder = new KeywordIndexBuilder();
const answer = (message: FromKeywordIndexWorker) => port.postMessage(message);

port.on('message', (message: ToKeywordIndexWorker) => {
  try {
    if (message.kind === 'names') {
      for (const name of message.names) builder.addName(name);
    } else if (message.kind === 'listings') {
      for (const listing of message.listings) builder.add(listing);
      answer({ kind: 'indexed' });
    } else {
      writeKeywordIndex(message.dir, builder.finish(message.popularity));
      answer({ kind: 'written' });
    }
  } catch (error) {
    // The thread's owner ends the worker (it stays until then, so this answer is not lost to its exit).
    answer({ kind: 'failed', message: error instanceof Error ? error.message : String(error) });
  }
});
