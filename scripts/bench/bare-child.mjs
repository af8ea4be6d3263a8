// The bare server of the API bench: node:http answering canned bytes and headers, in its own
// process as `quire start` is in its. Reads the answers from the JSON file named by argv[2]
// ({"<coding> <path>": {headers, body (base64)}}) and prints its port on stdout.
import fs from 'node:fs';
import http from 'node:http';

const canned = new Map(
  Object.entries(JSON.parse(fs.readFileSync(process.argv[2], 'utf8'))).map(([k, v]) => [
    k,
    { headers: v.headers, body: Buffer.from(v.body, 'base64') },
  ]),
);
const server = http.createServer((req, res) => {
  const coding = req.headers['accept-encoding'] === 'br' ? 'br' : 'identity';
  const c = canned.get(`${coding} ${req.url ?? ''}`);
  if (!c) {
    res.writeHead(404);
    return res.end();
  }
  if (req.headers['if-none-match'] === c.headers.etag) {
    res.writeHead(304, c.headers);
    return res.end();
  }
  res.writeHead(200, c.headers);
  res.end(c.body);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
