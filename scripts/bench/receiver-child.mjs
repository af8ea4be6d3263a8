// The webhook receiver of the deliveries bench, in its own process (as a site's receiver is):
// an HTTPS server that reads each body and answers 200 with a reply. Started with fork(); gets
// {key, cert} over IPC, replies {port}; answers 'count' with how many bodies it has received.
import https from 'node:https';

process.once('message', ({ key, cert }) => {
  let received = 0;
  const server = https.createServer({ key, cert, keepAliveTimeout: 30_000 }, (req, res) => {
    req.on('data', () => {});
    req.on('end', () => {
      received++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"url":"https://site.example/x","id":"x"}');
    });
  });
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
  process.on('message', (m) => {
    if (m === 'count') process.send({ received });
    else if (m === 'exit') server.close(() => process.exit(0));
  });
});
