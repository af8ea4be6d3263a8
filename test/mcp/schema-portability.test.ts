// Quire's tool schemas are portable: the MCP Inspector's own CLI lists the tools of a real
// `quire mcp` with --strict and finds nothing to warn about, and the schemas the SDK's client
// receives keep to the rules it checks (single `type` per node, no remote `$ref`, no boolean or
// untyped schemas) plus an object root.
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quireCommand, quireStdio, runProgram } from '../helpers/run-cli.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const INSPECTOR = path.join(
  ROOT,
  'node_modules',
  '@modelcontextprotocol',
  'inspector',
  'clients',
  'launcher',
  'build',
  'index.js',
);

let p: TempProject;
let env: Record<string, string>;

beforeAll(() => {
  p = createTempProject();
  writeSite(p, 'one');
  p.write(
    'one/articles/a.md',
    article({ title: 'A', status: 'published', publishedAt: '2026-01-01', updatedAt: '2026-01-01' }),
  );
  env = { QUIRE_CONTENT_DIR: p.contentDir, QUIRE_DIST_DIR: p.distDir, QUIRE_STATE_DIR: p.stateDir };
});
afterAll(() => p?.cleanup());

type Schema = Record<string, unknown>;

/** The Inspector's portability rules, plus an object root; returns "path: problem" lines. */
function unportable(schema: unknown, at: string): string[] {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    return [`${at}: a bare ${JSON.stringify(schema)} where a schema object belongs`];
  const s = schema as Schema;
  const problems: string[] = [];
  if (Array.isArray(s.type)) problems.push(`${at}: type is an array ${JSON.stringify(s.type)}; use anyOf branches`);
  if (typeof s.$ref === 'string' && !s.$ref.startsWith('#')) problems.push(`${at}: remote $ref ${s.$ref}`);
  const constrains = ['type', 'enum', 'const', 'anyOf', 'oneOf', 'allOf', 'not', '$ref', 'properties', 'items'].some(
    (k) => k in s,
  );
  if (!constrains) problems.push(`${at}: accepts any value (no type)`);
  for (const key of ['properties', 'patternProperties', '$defs', 'definitions']) {
    for (const [name, sub] of Object.entries((s[key] as Record<string, unknown> | undefined) ?? {}))
      problems.push(...unportable(sub, `${at}.${key}.${name}`));
  }
  for (const key of ['anyOf', 'oneOf', 'allOf'])
    ((s[key] as unknown[] | undefined) ?? []).forEach((sub, i) =>
      problems.push(...unportable(sub, `${at}.${key}[${i}]`)),
    );
  for (const key of ['items', 'additionalProperties', 'not'])
    if (typeof s[key] === 'object' && !Array.isArray(s[key])) problems.push(...unportable(s[key], `${at}.${key}`));
  return problems;
}

describe('tool schema portability', { timeout: 60_000 }, () => {
  it('the MCP Inspector CLI (--strict) lists every tool and reports no portability finding', async () => {
    const envArgs = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    const mcp = quireCommand(['mcp']);
    const r = await runProgram(
      process.execPath,
      [INSPECTOR, '--cli', '--method', 'tools/list', '--strict', ...envArgs, mcp.command, ...mcp.args],
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/Schema portability|Warning: tool|Error: tool|portability error/);
    const tools = (JSON.parse(r.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name).sort();
    expect(tools).toEqual([
      'check_conformance',
      'get_api_key',
      'get_article',
      'list_articles',
      'list_deliveries',
      'list_sites',
      'test_webhook',
      'verify_integration',
    ]);
  });

  it('every input and output schema the SDK client receives keeps to the portable rules', async () => {
    const client = new Client({ name: 'portability-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ ...quireStdio(['mcp'], env), stderr: 'pipe' }));
    try {
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(8);
      const problems: string[] = [];
      for (const tool of tools) {
        for (const [kind, schema] of [
          ['inputSchema', tool.inputSchema],
          ['outputSchema', tool.outputSchema],
        ] as const) {
          if (schema === undefined) continue;
          if (schema.type !== 'object') problems.push(`${tool.name}.${kind}: the root is not type "object"`);
          problems.push(...unportable(schema, `${tool.name}.${kind}`));
        }
      }
      expect(problems).toEqual([]);
    } finally {
      await client.close();
    }
  });
});
