// Runs the real `quire` command line in a child process.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { storeEnv } from './test-store.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
// The launcher users run (`npm run quire`, `npm start`…): the bundled CLI, rebuilt when src/ changes.
const NODE = process.execPath;
const MAIN = path.join(ROOT, 'bin', 'quire.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The command that runs `quire <args>` as users do (`node bin/quire.js …`), with Node's own
 * options first (e.g. `--import` a hook): for a tool that starts it itself (an MCP client, a
 * shell that sets a umask first).
 */
export function quireCommand(args: string[], nodeOptions: string[] = []): { command: string; args: string[] } {
  return { command: NODE, args: [...nodeOptions, MAIN, ...args] };
}

/** `quire <args>` as a stdio client starts it (the MCP SDK's transport): the command, the CLI's environment, the repository as its folder. */
export function quireStdio(
  args: string[],
  env: Record<string, string>,
): { command: string; args: string[]; env: Record<string, string>; cwd: string } {
  return { ...quireCommand(args), env: cliEnv(env) as Record<string, string>, cwd: ROOT };
}

export function cliEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env.QUIRE_SECRET;
  delete env.QUIRE_PUBLIC_URL;
  // On the PostgreSQL test run, each state dir's own database (unless the test names one).
  const store = extra.QUIRE_STATE_DIR && !extra.QUIRE_DATABASE_URL ? storeEnv(extra.QUIRE_STATE_DIR) : {};
  return { ...env, ...store, ...extra };
}

export function runCli(args: string[], env: Record<string, string>, cwd = ROOT): Promise<CliResult> {
  const quire = quireCommand(args);
  return runProgram(quire.command, quire.args, env, cwd);
}

/** Any program, with the CLI's environment (e.g. a tool that starts `quire` itself). */
export function runProgram(
  command: string,
  args: string[],
  env: Record<string, string>,
  cwd = ROOT,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Starts a long-running command (in `cwd`, default the repository root) and resolves once its output matches `ready`. */
export function startCli(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
  timeoutMs = 30_000,
  cwd = ROOT,
): Promise<{ child: ChildProcess; output: () => string; match: RegExpMatchArray; stop: () => Promise<void> }> {
  const quire = quireCommand(args);
  return startProgram(quire.command, quire.args, env, ready, timeoutMs, cwd);
}

/**
 * Any long-running program (e.g. an npm script), in its own process group so that stop() ends
 * everything it started; resolves once its output matches `ready`.
 */
export function startProgram(
  command: string,
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
  timeoutMs = 30_000,
  cwd = ROOT,
): Promise<{ child: ChildProcess; output: () => string; match: RegExpMatchArray; stop: () => Promise<void> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    const stop = () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done();
        child.once('close', () => done());
        process.kill(-child.pid!, 'SIGTERM');
      });
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`not ready after ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const onData = (d: Buffer) => {
      output += d.toString();
      const match = output.match(ready);
      if (match) {
        clearTimeout(timer);
        resolve({ child, output: () => output, match, stop });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before ready:\n${output}`));
    });
  });
}

/**
 * Starts a command in its own process group and hands back a way to SIGKILL all of it (render
 * workers and anything else it started) and its eventual result.
 */
export function spawnCli(
  args: string[],
  env: Record<string, string>,
): { child: ChildProcess; kill: () => void; result: Promise<CliResult> } {
  const quire = quireCommand(args);
  const child = spawn(quire.command, quire.args, {
    cwd: ROOT,
    env: cliEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const kill = () => process.kill(-child.pid!, 'SIGKILL');
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const result = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  return { child, kill, result };
}
