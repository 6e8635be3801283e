// The service's V8 setting, first, as main.ts has it: the floors run on the runtime the service runs on.
import '../src/common/no-pretenuring';
import http from 'node:http';

/** The platform's limit for `npm run bench`: a bare node:http route answering a small JSON body. */
const body = JSON.stringify({ ha: false, version: 'x', active_node: 'localhost' });
const server = http.createServer((_req, res) => {
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  process.stdout.write(`listening http://127.0.0.1:${port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
