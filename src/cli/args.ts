// The one argument parser of the `quire` command: each command declares its options (with their
// types, bounds and defaults) and its usage text as data (commands.ts); this turns argv into
// checked values, `--help`, or an error that says what to type instead. Nothing here runs a
// command. An option's default is its spec's: the value a command gets, and what --help says.
import { closestName } from '../text/closest-name.ts';

export type OptionSpec =
  | { type: 'boolean'; help: string }
  | { type: 'string'; value: string; help: string; multiple?: boolean; default?: string }
  | { type: 'integer'; value: string; help: string; min: number; max: number; default?: number };

export interface CommandSpec {
  name: string;
  /** One line for the command list of `quire --help`. */
  summary: string;
  /** Usage lines, without the leading `quire `. */
  usage: string[];
  options: Record<string, OptionSpec>;
  /** How many positional arguments the command takes. */
  positionals: { max: number };
  /** Printed after the options in the command's own help. */
  notes?: string[];
  /** Options people expect that are settings here (`--port 3000` is `PORT=3000`): the error says so. */
  settingOptions?: Record<string, SettingOption>;
}

export interface SettingOption {
  /** The environment variable. */
  setting: string;
  /** A value for the example when none was typed. */
  example: string;
  /** Said after the example, e.g. what 0 means. */
  note?: string;
}

export type ParsedArgs =
  | { kind: 'help' }
  | { kind: 'error'; message: string }
  | { kind: 'ok'; values: ArgValues; positionals: string[] };

/** What was typed; `…OrDefault` also reads the option's default from its spec. */
export class ArgValues {
  constructor(
    private readonly values: ReadonlyMap<string, string | boolean | number | string[]>,
    private readonly options: CommandSpec['options'],
  ) {}
  flag(name: string): boolean {
    return this.values.get(name) === true;
  }
  /** The value given; undefined when the option was not typed. */
  string(name: string): string | undefined {
    const v = this.values.get(name);
    return typeof v === 'string' ? v : undefined;
  }
  /** The value given; undefined when the option was not typed. */
  integer(name: string): number | undefined {
    const v = this.values.get(name);
    return typeof v === 'number' ? v : undefined;
  }
  /** The value given, else the spec's default (an option without one is a mistake in its spec, specs/). */
  stringOrDefault(name: string): string {
    const fallback = this.defaultOf(name);
    if (typeof fallback !== 'string') throw new Error(`--${name} has no string default in its command's spec`);
    return this.string(name) ?? fallback;
  }
  /** The value given, else the spec's default (an option without one is a mistake in its spec, specs/). */
  integerOrDefault(name: string): number {
    const fallback = this.defaultOf(name);
    if (typeof fallback !== 'number') throw new Error(`--${name} has no integer default in its command's spec`);
    return this.integer(name) ?? fallback;
  }
  private defaultOf(name: string): string | number | undefined {
    const option = this.options[name];
    return option && 'default' in option ? option.default : undefined;
  }
  list(name: string): string[] {
    const v = this.values.get(name);
    return Array.isArray(v) ? v : [];
  }
}

const HELP_FLAGS = new Set(['--help', '-h']);

export function parseArgs(spec: CommandSpec, argv: readonly string[]): ParsedArgs {
  const values = new Map<string, string | boolean | number | string[]>();
  const positionals: string[] = [];
  const error = (message: string): ParsedArgs => ({ kind: 'error', message: `${message}\n${usageText(spec)}` });
  // Help wins wherever it stands (before `--`), so `--help` never runs anything.
  const end = argv.indexOf('--');
  if ((end === -1 ? argv : argv.slice(0, end)).some((a) => HELP_FLAGS.has(a))) return { kind: 'help' };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(arg.startsWith('--') ? 2 : 1, eq === -1 ? undefined : eq);
    const option = arg.startsWith('--') ? spec.options[name] : undefined;
    const setting = !option && arg.startsWith('--') ? spec.settingOptions?.[name] : undefined;
    if (setting) {
      const next = argv[i + 1];
      const typed = eq !== -1 ? arg.slice(eq + 1) : next !== undefined && !next.startsWith('-') ? next : '';
      const example = `${setting.setting}=${/^[\w.:-]+$/.test(typed) ? typed : setting.example} quire ${spec.name}`;
      return error(
        `quire ${spec.name}: --${name} is not an option; it is the setting ${setting.setting}, set in the environment: ${example}${setting.note ? ` (${setting.note})` : ''}`,
      );
    }
    if (!option) {
      const near = closestName(name, Object.keys(spec.options));
      return error(
        `quire ${spec.name}: unknown option ${arg.slice(0, eq === -1 ? undefined : eq)}${near ? ` (did you mean --${near}?)` : ''}`,
      );
    }
    if (option.type === 'boolean') {
      if (eq !== -1) return error(`quire ${spec.name}: --${name} takes no value`);
      values.set(name, true);
      continue;
    }
    let raw: string;
    if (eq !== -1) raw = arg.slice(eq + 1);
    else {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('--'))
        return error(`quire ${spec.name}: --${name} needs a value (${option.value})`);
      raw = next;
      i++;
    }
    if (option.type === 'integer') {
      const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
      if (!(n >= option.min && n <= option.max)) {
        return error(
          `quire ${spec.name}: --${name} must be a whole number from ${option.min} to ${option.max} (got ${JSON.stringify(raw)})`,
        );
      }
      values.set(name, n);
    } else if (option.multiple) {
      values.set(name, [...((values.get(name) as string[] | undefined) ?? []), raw]);
    } else {
      if (values.has(name)) return error(`quire ${spec.name}: --${name} given twice`);
      values.set(name, raw);
    }
  }
  if (positionals.length > spec.positionals.max) {
    return error(`quire ${spec.name}: unexpected argument ${JSON.stringify(positionals[spec.positionals.max])}`);
  }
  return { kind: 'ok', values: new ArgValues(values, spec.options), positionals };
}

/** The usage lines alone (for errors). */
export function usageText(spec: CommandSpec): string {
  return `usage:\n${spec.usage.map((u) => `  quire ${u}`).join('\n')}`;
}

/** `quire <command> --help`: usage, options, notes. */
export function helpText(spec: CommandSpec): string {
  const lines = [`quire ${spec.name} — ${spec.summary}`, '', usageText(spec)];
  const options = Object.entries(spec.options);
  const label = (name: string, o: OptionSpec) => `--${name}${o.type === 'boolean' ? '' : ` <${o.value}>`}`;
  const about = (o: OptionSpec) =>
    'default' in o && o.default !== undefined ? `${o.help} (default ${o.default})` : o.help;
  const width = Math.max(...options.map(([n, o]) => label(n, o).length), '-h, --help'.length);
  lines.push('', 'options:');
  for (const [name, o] of options) lines.push(`  ${label(name, o).padEnd(width)}  ${about(o)}`);
  lines.push(`  ${'-h, --help'.padEnd(width)}  print this help and do nothing else`);
  if (spec.notes?.length) lines.push('', ...spec.notes);
  return lines.join('\n');
}
