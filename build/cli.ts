// `npm run catalog -- <command>`: the entry point of the command-line tool (build/cli-program.ts), which it loads
// with Node's compile cache on (src/compile-cache.ts): cron and the daily cycle start it many times a day.
import { enableCompileCache } from '../src/compile-cache.ts';

enableCompileCache();
await import('./cli-program.ts');
