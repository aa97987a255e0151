import { CliCommand, runCommands } from './run-commands';
import { UsageError } from './usage-error';

interface Ctx {
  close(): Promise<void>;
}

const commands: Record<string, CliCommand<Ctx>> = {
  'things show': {
    options: { format: { type: 'string' } },
    positionals: ['slug'],
    parse: (values, [slug]) => ({ slug, format: values.format ?? 'json' }),
    run: async (_ctx, input: { slug: string; format: string }) => input,
  },
  'things sweep': {
    options: {},
    parse: () => ({}),
    run: async () => {
      throw new Error('database unreachable');
    },
  },
  'things check': {
    options: { limit: { type: 'string' } },
    parse: (values) => {
      if (values.limit === undefined) throw new UsageError('--limit is required');
      return {};
    },
    run: async () => ({ ok: true }),
  },
};

function cli() {
  const out: string[] = [];
  const err: string[] = [];
  const events: string[] = [];
  const run = (...argv: string[]) =>
    runCommands(
      argv,
      { out: (t) => out.push(t), err: (t) => err.push(t) },
      {
        help: { usage: 'Usage: things <command>', helpCommand: 'things --help' },
        commands,
        words: 2,
        open: async () => {
          events.push('open');
          return { close: async () => void events.push('close') };
        },
      },
    );
  return { out, err, events, run };
}

describe('runCommands', () => {
  it('runs a command with its flags and positionals, prints JSON and closes what it opened', async () => {
    const c = cli();
    expect(await c.run('things', 'show', 'lamp', '--format', 'text')).toBe(0);
    expect(JSON.parse(c.out[0])).toEqual({ slug: 'lamp', format: 'text' });
    expect(c.events).toEqual(['open', 'close']);
  });

  it('prints the usage: exit 0 when asked for, 2 with no arguments', async () => {
    const c = cli();
    expect(await c.run('--help')).toBe(0);
    expect(await c.run()).toBe(2);
    expect(c.out).toEqual(['Usage: things <command>', 'Usage: things <command>']);
  });

  it('refuses bad command lines with exit code 2 before connecting', async () => {
    const c = cli();
    expect(await c.run('things', 'melt')).toBe(2);
    expect(await c.run('things', 'show')).toBe(2);
    expect(await c.run('things', 'sweep', 'extra')).toBe(2);
    expect(await c.run('things', 'show', 'lamp', '--colour', 'red')).toBe(2);
    expect(await c.run('things', 'check')).toBe(2);
    expect(c.err[0]).toBe('error: Unknown command: things melt\n\nUsage: things <command>');
    expect(c.err[1]).toMatch(/^error: Expected <slug>\n/);
    expect(c.err[2]).toMatch(/^error: Unexpected argument: extra\n/);
    expect(c.err[3]).toMatch(/--colour/);
    expect(c.err[4]).toBe('error: --limit is required\n(things --help for usage)');
    expect(c.events).toEqual([]);
  });

  it('exits 1 when the command fails, and still closes', async () => {
    const c = cli();
    expect(await c.run('things', 'sweep')).toBe(1);
    expect(c.err).toEqual(['error: database unreachable']);
    expect(c.events).toEqual(['open', 'close']);
  });
});
