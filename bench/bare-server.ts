// The baseline: a bare node:http server answering a fixed JSON body of a typical page's size.
import { createServer } from 'node:http';

const body = JSON.stringify({ items: Array.from({ length: 20 }, (_, i) => ({ id: `skill:owner/repo#item-${i}`, name: `item ${i}`, description: 'x'.repeat(120) })) });
createServer((req, res) => {
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}).listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
