// An option's default is its spec's (src/cli/commands.ts): the parser hands it to the command
// when the option is not typed, and the command's --help says it, from the same field.
import { describe, expect, it } from 'vitest';
import { helpText, parseArgs, type ArgValues } from '../../src/cli/args.ts';
import { commandNamed, COMMANDS } from '../../src/cli/commands.ts';

function valuesOf(command: string, argv: string[]): ArgValues {
  const parsed = parseArgs(commandNamed(command)!, argv);
  if (parsed.kind !== 'ok') throw new Error(`not parsed: ${JSON.stringify(parsed)}`);
  return parsed.values;
}

describe('option defaults', () => {
  it('are handed to the command when the option is not typed; a typed value wins', () => {
    expect(valuesOf('deliveries', []).integerOrDefault('limit')).toBe(200);
    expect(valuesOf('deliveries', ['--limit', '5']).integerOrDefault('limit')).toBe(5);
    expect(valuesOf('preview', ['one', 'a']).stringOrDefault('ttl')).toBe('24h');
    expect(valuesOf('preview', ['one', 'a', '--ttl', '7d']).stringOrDefault('ttl')).toBe('7d');
  });

  it('leave what was typed apart: `integer` and `string` are undefined for an option not given', () => {
    const values = valuesOf('start', []);
    expect(values.integer('interval')).toBeUndefined();
    expect(values.integerOrDefault('interval')).toBe(60);
  });

  it('are a mistake to ask of an option that has none', () => {
    expect(() => valuesOf('worker', []).integerOrDefault('per-host')).toThrow(/--per-host has no integer default/);
  });

  it("are printed by --help from the spec, and spelled nowhere else in an option's help", () => {
    for (const spec of COMMANDS) {
      const help = helpText(spec);
      for (const [name, option] of Object.entries(spec.options)) {
        if (!('default' in option) || option.default === undefined) continue;
        expect(option.help, `--${name} of ${spec.name}`).not.toMatch(/default/);
        expect(help, `--${name} of ${spec.name}`).toMatch(
          new RegExp(
            `^  --${name} <[^>]+> +${escapeRegExp(option.help)} \\(default ${escapeRegExp(String(option.default))}\\)$`,
            'm',
          ),
        );
      }
    }
  });
});

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
