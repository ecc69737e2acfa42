// The baseline: a bare node:http server answering a fixed JSON body. BODY_BYTES makes it the same size as
// the shim's answers, so the comparison measures the shim's work and not the cost of moving more bytes.
import { createServer } from 'node:http';

const size = Number(process.env.BODY_BYTES ?? 3500);
const item = JSON.stringify({ id: 'skill:owner/repo#item', name: 'item', description: 'x'.repeat(120) });
const items: string[] = [];
while ((items.length + 1) * (item.length + 1) + 12 < size) items.push(item);
const body = `{"items":[${items.join(',')}]}`.padEnd(size, ' ');
createServer((req, res) => {
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}).listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
