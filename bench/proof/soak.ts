// Soak: mixed traffic at a steady rate for SOAK_SECONDS (default 600) against one shim, from 1,000 ordinary
// clients (X-Forwarded-For, TRUST_PROXY=true) and one client that exceeds the rate limit. Passes when every
// answer to an ordinary client is a success, the only errors are the abusive client's 429s, and RSS stays
// under the bound (SOAK_RSS_BOUND_MB, default 600 MB: the 500 MB target of the bench plus room for the embedding model) and stops growing: the largest
// RSS of the second half is within SOAK_GROWTH_MB (default 48) of the largest of the first half.
//   flock /tmp/catalog-bench.lock npx node bench/proof/soak.ts <data-dir>
import { maxOf, percentile, startShim, startTraffic, tally } from './traffic.ts';

const dataDir = process.argv[2] ?? process.env.CATALOG_DATA_DIR;
if (!dataDir) throw new Error('usage: soak.ts <data dir with a build>');
const seconds = Number(process.env.SOAK_SECONDS ?? 600);
const rate = Number(process.env.SOAK_RATE ?? 400);
const bound = Number(process.env.SOAK_RSS_BOUND_MB ?? 600);
const growthBound = Number(process.env.SOAK_GROWTH_MB ?? 48);
const ABUSER = '192.0.2.66';

const shim = await startShim({ CATALOG_DATA_DIR: dataDir, CATALOG_BUILD_ON_START: 'false', TRUST_PROXY: 'true', SEARCH_SIGNALS: 'off' });
const rss: Array<{ t: number; mb: number }> = [];
const traffic = startTraffic([shim.origin], {
  ratePerSecond: rate,
  // Every 10th request comes from one client: 40 a second against a budget of 120 a minute.
  clientFor: (i) => (i % 10 === 0 ? ABUSER : `10.${(i >> 16) & 255}.${(i >> 8) & 3}.${i % 250}`),
  keep: () => true,
});
const sampler = setInterval(() => rss.push({ t: Math.round(traffic.elapsedMs / 1000), mb: shim.rssMB() }), 5000);
await new Promise((r) => setTimeout(r, seconds * 1000));
clearInterval(sampler);
await traffic.stop();
const finalRss = shim.rssMB();
await shim.stop();

const answers = traffic.answers;
const ordinary = tally(answers.filter((a) => a.client !== ABUSER));
const abuser = tally(
  answers.filter((a) => a.client === ABUSER),
  (a) => (a.status >= 200 && a.status < 400) || a.status === 429,
);
const limited = answers.filter((a) => a.status === 429).length;
const half = rss.filter((s) => s.t <= seconds / 2);
const second = rss.filter((s) => s.t > seconds / 2);
const maxFirst = maxOf(half.map((s) => s.mb));
const maxSecond = maxOf(second.map((s) => s.mb));
const latencies = answers.filter((a) => a.status === 200).map((a) => a.doneAt - a.sentAt);
const summary = {
  seconds,
  ratePerSecond: rate,
  requests: answers.length,
  achievedPerSecond: Math.round(answers.length / seconds),
  ordinaryByStatus: ordinary.byStatus,
  abusiveByStatus: abuser.byStatus,
  failures: ordinary.failed + abuser.failed,
  failureSamples: [...ordinary.failures, ...abuser.failures],
  intended429: limited,
  p50ms: Math.round(percentile(latencies, 50) * 10) / 10,
  p99ms: Math.round(percentile(latencies, 99) * 10) / 10,
  rssMB: { first: rss[0]?.mb, maxFirstHalf: maxFirst, maxSecondHalf: maxSecond, final: finalRss, bound, growthBound },
  rssSamples: rss.map((s) => `${s.t}s:${s.mb}`).join(' '),
};
console.log(JSON.stringify(summary, null, 2));
const ok = ordinary.failed === 0 && abuser.failed === 0 && limited > 0 && maxSecond <= bound && maxSecond - maxFirst <= growthBound;
console.log(ok ? 'SOAK PASSED' : 'SOAK FAILED');
process.exit(ok ? 0 : 1);
