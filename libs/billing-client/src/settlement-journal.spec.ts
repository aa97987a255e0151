import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SettleRequest } from '@svc/contracts';
import { openSettlementJournal, SettlementJournal } from './settlement-journal';

const quiet = { debug: jest.fn(), info: jest.fn(), warn: jest.fn(), error: jest.fn() } as never;
const settle = (n: number): SettleRequest => ({
  reservationId: `res-${n}`,
  source: 'service',
  outcome: 'completed',
  usage: { kind: 'text', promptTokens: n, completionTokens: 2 * n },
});
/** A pid no process has (above the kernel's pid_max of 2^22). */
const DEAD_PID = 4_194_999;

describe('SettlementJournal', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'journal-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const open = (name = 'chat') => SettlementJournal.open(dir, name, quiet)!;
  const files = () => readdirSync(dir).sort();
  /** A journal file as a process that is gone left it. */
  const orphan = (lines: unknown[], file = `chat.${DEAD_PID}-123.1s1.jsonl`) => {
    writeFileSync(path.join(dir, file), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    return file;
  };

  it('writes each entry before it is sent and its delivery after; a clean close with nothing owed leaves no file', () => {
    const journal = open();
    const a = journal.append({ request: settle(1), requestId: 'r1' });
    const b = journal.append({ request: settle(2), requestId: 'r2' });
    expect(files()).toHaveLength(1);
    const lines = () =>
      readFileSync(path.join(dir, files()[0]), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
    expect(lines()).toEqual([
      { i: a, q: settle(1), r: 'r1' },
      { i: b, q: settle(2), r: 'r2' },
    ]);
    journal.delivered([a, b]);
    expect(lines()[2]).toEqual({ d: [a, b] });
    journal.close();
    expect(files()).toEqual([]);
  });

  it('keeps what is still owed at close, for the next process', () => {
    const journal = open();
    journal.append({ request: settle(1), requestId: 'r1' });
    journal.close();
    expect(files()).toHaveLength(1);
  });

  it("claims a stopped process's file: what it owed, not what was delivered nor a line torn by the kill", () => {
    const file = orphan([{ i: 1, q: settle(1), r: 'r1' }, { i: 2, q: settle(2), r: 'r2' }, { d: [1] }, { i: 3, q: settle(3), r: 'r3' }]);
    appendFileSync(path.join(dir, file), '{"i":4,"q":{"reserv');
    const journal = open();
    expect(journal.claimOrphans()).toEqual([
      { request: settle(2), requestId: 'r2' },
      { request: settle(3), requestId: 'r3' },
    ]);
    // renamed into this process's name until settled again, so a crash meanwhile loses nothing
    expect(files()).not.toContain(file);
    expect(files()).toHaveLength(2);
    journal.releaseClaimed();
    expect(files()).toHaveLength(1);
    expect(journal.claimOrphans()).toEqual([]);
  });

  it("leaves a live process's file and another service's alone", async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => child.once('spawn', resolve));
      const start = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ')[19];
      const live = orphan([{ i: 1, q: settle(1), r: 'r1' }], `chat.${child.pid}-${start}.1s1.jsonl`);
      const other = orphan([{ i: 1, q: settle(5), r: 'r5' }], `audio.${DEAD_PID}-1.1s1.jsonl`);
      // the same pid started at another time is another (gone) process: pid 1 of a restarted container
      orphan([{ i: 1, q: settle(7), r: 'r7' }], `chat.${child.pid}-1.1s1.jsonl`);
      const journal = open();
      expect(journal.claimOrphans()).toEqual([{ request: settle(7), requestId: 'r7' }]);
      journal.releaseClaimed();
      expect(files()).toEqual(expect.arrayContaining([live, other]));
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('two replicas starting at once never both take a file', () => {
    orphan([{ i: 1, q: settle(1), r: 'r1' }]);
    const [a, b] = [open(), open()];
    expect([...a.claimOrphans(), ...b.claimOrphans()]).toEqual([{ request: settle(1), requestId: 'r1' }]);
  });

  it('rolls over to a new file past 4 MiB and deletes an old one once all of it is delivered', () => {
    const journal = open();
    const first: number[] = [];
    while (files().length < 2) for (let k = 0; k < 1_000; k++) first.push(journal.append({ request: settle(k), requestId: `r${k}` }));
    const [old, current] = files();
    const next = journal.append({ request: settle(1), requestId: 'next' });
    journal.delivered(first);
    expect(files()).toEqual([current]);
    expect(files()).not.toContain(old);
    journal.delivered([next]);
    journal.close();
    expect(files()).toEqual([]);
  });

  it('is off for SETTLEMENT_JOURNAL_DIR=off, and null (logged) where the directory cannot be made', () => {
    expect(openSettlementJournal('off', 'chat', quiet)).toBeNull();
    const notADir = path.join(dir, 'file');
    writeFileSync(notADir, '');
    expect(openSettlementJournal(path.join(notADir, 'sub'), 'chat', quiet)).toBeNull();
  });
});
