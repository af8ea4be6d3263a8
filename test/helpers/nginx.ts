// A real nginx as a child process, for tests of Quire behind a reverse proxy: its config, pid
// file, logs and temp folders in a temp dir, listening only where the given config says
// (127.0.0.1 ports). `master_process off` keeps it one process of this user; stop() ends it by pid.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/** Where nginx is, or null: a machine without it (CI installs it, see .ci/run). */
export function findNginx(): string | null {
  for (const candidate of ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'])
    if (fs.existsSync(candidate)) return candidate;
  return null;
}

/** A port free on 127.0.0.1 now (the kernel's pick): for a server that cannot be told port 0. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

export interface RunningNginx {
  /** What nginx wrote to its error log (for a failing test's message). */
  errorLog(): string;
  stop(): Promise<void>;
}

/**
 * Runs nginx with `httpBlock` (the inside of `http { }`: server blocks) in `dir`. Resolves once
 * every port in `ports` accepts connections.
 */
export async function startNginx(
  binary: string,
  dir: string,
  httpBlock: string,
  ports: number[],
): Promise<RunningNginx> {
  for (const sub of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'])
    fs.mkdirSync(path.join(dir, sub), { recursive: true });
  const at = (name: string) => path.join(dir, name);
  const conf = [
    'daemon off;',
    'master_process off;',
    `pid ${at('nginx.pid')};`,
    `error_log ${at('error.log')} warn;`,
    'events { worker_connections 256; }',
    'http {',
    `  access_log ${at('access.log')};`,
    `  client_body_temp_path ${at('client_body')};`,
    `  proxy_temp_path ${at('proxy')};`,
    `  fastcgi_temp_path ${at('fastcgi')};`,
    `  uwsgi_temp_path ${at('uwsgi')};`,
    `  scgi_temp_path ${at('scgi')};`,
    httpBlock,
    '}',
    '',
  ].join('\n');
  fs.writeFileSync(at('nginx.conf'), conf);
  const errorLog = () => (fs.existsSync(at('error.log')) ? fs.readFileSync(at('error.log'), 'utf8') : '');
  // -e: the error log before the config is read is ours too (not the distribution's /var/log).
  const child: ChildProcess = spawn(binary, ['-p', dir, '-c', at('nginx.conf'), '-e', at('error.log')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      process.kill(child.pid!, 'SIGQUIT');
      await exited;
    }
  };
  const until = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited with ${child.exitCode}:\n${stderr}\n${errorLog()}`);
    if ((await Promise.all(ports.map(accepts))).every(Boolean)) return { errorLog, stop };
    if (Date.now() > until) {
      await stop();
      throw new Error(`nginx did not listen on ${ports.join(', ')}:\n${stderr}\n${errorLog()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}
