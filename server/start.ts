// `npm start`: the entry point of the shim (server/main.ts), which it loads with Node's compile cache on
// (src/compile-cache.ts): compiling the module graph is a large part of the time to the first answer.
import { enableCompileCache } from '../src/compile-cache.ts';

enableCompileCache();
await import('./main.ts');
