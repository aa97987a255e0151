import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Catalog } from '@svc/catalog';
import { CharacterInput } from '@svc/contracts';
import { CharacterOwner } from '../character-owner';
import { CharacterRecord } from '../character.record';
import { CharactersRepository } from '../characters.repository';
import { DEFAULT_CHARACTERS } from '../default-characters';
import { runCharactersCli } from './run-cli';

/** Just enough of the repository for the CLI: a map by slug. */
class InMemoryCharacters implements Partial<CharactersRepository> {
  readonly rows = new Map<string, CharacterRecord>();
  private record(input: CharacterInput, author: string, owner: CharacterOwner, previous?: CharacterRecord): CharacterRecord {
    const now = new Date();
    return {
      id: previous?.id ?? `id-${input.slug}`,
      ...input,
      author,
      ownerAccountId: owner,
      imports: 0,
      ratingCount: 0,
      ratingSum: 0,
      createdAt: previous?.createdAt ?? now,
      updatedAt: now,
    };
  }
  async list() {
    return { rows: [...this.rows.values()], total: this.rows.size };
  }
  async findBySlug(slug: string) {
    return this.rows.get(slug) ?? null;
  }
  async save(input: CharacterInput, owner: CharacterOwner, author: string) {
    const previous = this.rows.get(input.slug);
    if (previous && previous.ownerAccountId !== owner) return null;
    const row = this.record(input, author, owner, previous);
    this.rows.set(input.slug, row);
    return row;
  }
  async insertIfMissing(input: CharacterInput, author: string) {
    if (this.rows.has(input.slug)) return false;
    this.rows.set(input.slug, this.record(input, author, null));
    return true;
  }
  async delete(slug: string) {
    return this.rows.delete(slug);
  }
}

const catalog = {
  traits: () => ({ default: 'svc-zoo-chat' }),
  resolve: (id: string) => (['svc-zoo-chat', 'big-model'].includes(id) ? { id } : undefined),
  ofType: () => [{ id: 'svc-zoo-chat' }],
} as unknown as Catalog;

function harness() {
  const repository = new InMemoryCharacters();
  let opened = 0;
  const out: string[] = [];
  const err: string[] = [];
  const deps = {
    loadConfig: () => ({ CHAT_DATABASE_URL: 'postgresql://x/svc_chat' }),
    open: async () => {
      opened++;
      return { repository: repository as unknown as CharactersRepository, catalog, close: async () => undefined };
    },
  };
  const run = (...argv: string[]) => runCharactersCli(argv, { out: (t) => out.push(t), err: (t) => err.push(t) }, deps);
  return { repository, out, err, run, opened: () => opened };
}

describe('characters CLI', () => {
  it('creates a character on the default model, shows it with its prompt, and lists it', async () => {
    const h = harness();
    expect(await h.run('characters', 'create', '--slug', 'tutor', '--name', 'Tutor', '--prompt', 'You teach.', '--tags', 'Learning, Kids', '--featured')).toBe(
      0,
    );
    expect(JSON.parse(h.out[0])).toEqual(
      expect.objectContaining({ slug: 'tutor', modelId: 'svc-zoo-chat', tags: ['Learning', 'Kids'], featured: true, adult: false, author: 'svc' }),
    );
    expect(JSON.parse(h.out[0])).not.toHaveProperty('systemPrompt');
    expect(await h.run('characters', 'show', 'tutor')).toBe(0);
    expect(JSON.parse(h.out[1])).toEqual(expect.objectContaining({ slug: 'tutor', systemPrompt: 'You teach.' }));
    expect(await h.run('characters', 'list')).toBe(0);
    expect(JSON.parse(h.out[2])).toEqual({ total: 1, data: [{ slug: 'tutor', name: 'Tutor', modelId: 'svc-zoo-chat', featured: true, adult: false }] });
  });

  it('reads a long prompt from a file and takes another catalog model', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-chars-'));
    try {
      writeFileSync(path.join(dir, 'p.txt'), 'A long persona.\nSecond line.');
      const h = harness();
      expect(
        await h.run('characters', 'create', '--slug', 'long-one', '--name', 'Long', '--prompt-file', path.join(dir, 'p.txt'), '--model', 'big-model'),
      ).toBe(0);
      expect(h.repository.rows.get('long-one')).toEqual(expect.objectContaining({ systemPrompt: 'A long persona.\nSecond line.', modelId: 'big-model' }));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    [['characters', 'create', '--slug', 'Bad Slug', '--name', 'x', '--prompt', 'p'], /--slug/],
    [['characters', 'create', '--slug', 'ok', '--name', 'x'], /--prompt: is required/],
    [['characters', 'create', '--slug', 'ok', '--name', 'x', '--prompt', 'p', '--model', 'nope'], /--model: "nope" is not a text model/],
    [['characters', 'create', '--slug', 'ok', '--bogus', 'x'], /bogus/],
    [['characters', 'show'], /Expected <slug>/],
    [['characters', 'rename', 'x'], /Unknown command: characters rename/],
  ])('refuses %j with exit code 2', async (argv, message) => {
    const h = harness();
    expect(await h.run(...argv)).toBe(2);
    expect(h.err.join('\n')).toMatch(message);
    expect(h.repository.rows.size).toBe(0);
  });

  it('deletes, and fails with exit code 1 for a slug that does not exist', async () => {
    const h = harness();
    await h.run('characters', 'create', '--slug', 'gone', '--name', 'Gone', '--prompt', 'p');
    expect(await h.run('characters', 'delete', 'gone')).toBe(0);
    expect(JSON.parse(h.out[1])).toEqual({ deleted: true });
    expect(await h.run('characters', 'delete', 'gone')).toBe(1);
    expect(h.err[0]).toMatch(/not found/);
  });

  it("acts as the operator: refuses to overwrite an account's character, but may delete it", async () => {
    const h = harness();
    const account = '11111111-1111-4111-8111-111111111111';
    await h.repository.save({ ...DEFAULT_CHARACTERS[0], slug: 'theirs', modelId: 'svc-zoo-chat' }, account, 'abcde');
    expect(await h.run('characters', 'create', '--slug', 'theirs', '--name', 'Mine now', '--prompt', 'p')).toBe(1);
    expect(h.err.join('\n')).toMatch(/belongs to an account; delete it first/);
    expect(h.repository.rows.get('theirs')).toEqual(expect.objectContaining({ name: DEFAULT_CHARACTERS[0].name, ownerAccountId: account }));
    expect(await h.run('characters', 'show', 'theirs')).toBe(0);
    expect(JSON.parse(h.out[0])).toEqual(expect.objectContaining({ ownerAccountId: account, author: 'abcde' }));
    expect(await h.run('characters', 'delete', 'theirs')).toBe(0);
    expect(h.repository.rows.has('theirs')).toBe(false);
  });

  it('seeds the shipped characters once', async () => {
    const h = harness();
    expect(await h.run('characters', 'seed')).toBe(0);
    expect(JSON.parse(h.out[0])).toEqual({ created: DEFAULT_CHARACTERS.length, author: 'svc' });
    expect(await h.run('characters', 'seed')).toBe(0);
    expect(JSON.parse(h.out[1]).created).toBe(0);
  });

  it('prints the usage for --help (exit 0) and for no arguments (exit 2)', async () => {
    const h = harness();
    expect(await h.run('--help')).toBe(0);
    expect(await h.run()).toBe(2);
    expect(h.out[0]).toMatch(/characters create/);
    expect(h.opened()).toBe(0);
  });
});
