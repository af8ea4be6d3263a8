// The receivers of the fleet bench, in a process of their own (as sites' receivers are): `count`
// HTTPS servers on loopback ports that read each body and answer 200. Started with fork(); gets
// {key, cert, count} over IPC, replies {ports}; answers 'count' with the bodies received in all.
import https from 'node:https';

process.once('message', async ({ key, cert, count }) => {
  let received = 0;
  const servers = [];
  for (let i = 0; i < count; i++) {
    const server = https.createServer({ key, cert, keepAliveTimeout: 30_000 }, (req, res) => {
      req.on('data', () => {});
      req.on('end', () => {
        received++;
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
  }
  process.send({ ports: servers.map((s) => s.address().port) });
  process.on('message', (m) => {
    if (m === 'count') process.send({ received });
    else if (m === 'exit') process.exit(0);
  });
});
