// Child process of test/build/mirror-streaming.test.ts: mirrors <baseUrl> into <dir> without building, under whatever
// V8 heap limit the parent started it with, and prints the report with the process's RSS before and at its peak.
// Usage: node --max-old-space-size=<MiB> mirror-runner.ts <baseUrl> <dir>
import { mirror } from '../../build/mirror/mirror.ts';

const [baseUrl, dir] = process.argv.slice(2);
if (!baseUrl || !dir) throw new Error('usage: mirror-runner.ts <baseUrl> <dir>');
// The fetch machinery loads on first use: one small request first, so the figure before is of a process ready to fetch.
await (await fetch(`${baseUrl}/shards/gone.json`)).arrayBuffer();
globalThis.gc?.();
const startRssKB = Math.round(process.memoryUsage.rss() / 1024);
const report = await mirror({ baseUrl, dir, publicUrl: 'http://mirror.test', build: false });
console.log(JSON.stringify({ report, startRssKB, maxRssKB: process.resourceUsage().maxRSS }));
