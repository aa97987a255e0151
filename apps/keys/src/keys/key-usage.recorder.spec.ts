import { InMemoryKeysRepository } from '../../test/fakes/in-memory-keys.repository';
import { KeyUse } from './api-key.record';
import { KeyUsageRecorder } from './key-usage.recorder';

const ID = '11111111-1111-4111-8111-111111111111';
const ID2 = '22222222-2222-4222-8222-222222222222';

class SpyRepository extends InMemoryKeysRepository {
  readonly batches: KeyUse[][] = [];
  fail = false;
  override async recordUses(uses: KeyUse[]) {
    if (this.fail) throw new Error('database down');
    this.batches.push(uses);
    return uses.length;
  }
}

function setup() {
  const repo = new SpyRepository();
  return { repo, recorder: new KeyUsageRecorder(repo, { KEYS_USED_FLUSH_MS: 60_000 }) };
}

describe('KeyUsageRecorder', () => {
  it('writes one batch with the latest time per key', async () => {
    const { repo, recorder } = setup();
    recorder.record([
      { id: ID, at: '2026-01-01T00:00:02Z' },
      { id: ID2, at: '2026-01-01T00:00:01Z' },
    ]);
    recorder.record([{ id: ID, at: '2026-01-01T00:00:01Z' }]);
    await recorder.flush();
    expect(repo.batches).toEqual([
      [
        { id: ID, at: new Date('2026-01-01T00:00:02Z') },
        { id: ID2, at: new Date('2026-01-01T00:00:01Z') },
      ],
    ]);
    await recorder.flush();
    expect(repo.batches).toHaveLength(1);
  });

  it('never records a time in the future and ignores garbage', async () => {
    const { repo, recorder } = setup();
    const now = Date.UTC(2026, 0, 1);
    recorder.record(
      [
        { id: ID, at: '2099-01-01T00:00:00Z' },
        { id: 'nope', at: '2026-01-01T00:00:00Z' },
        { id: ID2, at: 'yesterday' },
      ],
      now,
    );
    await recorder.flush();
    expect(repo.batches).toEqual([[{ id: ID, at: new Date(now) }]]);
  });

  it('keeps uses for the next flush when writing fails', async () => {
    const { repo, recorder } = setup();
    recorder.record([{ id: ID, at: '2026-01-01T00:00:00Z' }]);
    repo.fail = true;
    await recorder.flush();
    repo.fail = false;
    await recorder.flush();
    expect(repo.batches).toEqual([[{ id: ID, at: new Date('2026-01-01T00:00:00Z') }]]);
  });

  it('flushes what is left when the service stops', async () => {
    const { repo, recorder } = setup();
    recorder.onModuleInit();
    recorder.record([{ id: ID, at: '2026-01-01T00:00:00Z' }]);
    await recorder.onModuleDestroy();
    expect(repo.batches).toHaveLength(1);
  });
});
