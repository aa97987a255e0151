import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import { SettleRequest } from '@svc/contracts';
import { Logger } from '@svc/logging';

/** The service's SettlementJournal (or null: none), for BillingSettler. */
export const SETTLEMENT_JOURNAL = Symbol('SETTLEMENT_JOURNAL');

/** A settlement the journal still owes billing. */
export interface JournalEntry {
  request: SettleRequest;
  requestId: string;
}

/** Journals opened by this process (tests run several services' settlers in one process). */
let instances = 0;

/** A segment is closed for new entries past this size, and deleted once all of its entries are delivered. */
const SEGMENT_BYTES = 4 * 1024 * 1024;

interface Segment {
  file: string;
  fd: number;
  /** Entries written here and not yet delivered. */
  open: number;
  bytes: number;
}

/** A process as a journal owner: pid and start time (a pid alone is reused, as pid 1 in every container). */
function processStamp(pid: number): string | null {
  try {
    // /proc/<pid>/stat: field 22 is the start time; the command name (field 2) may hold spaces, so count after ')'
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return `${pid}-${fields[19]}`;
  } catch {
    return null;
  }
}

/** Whether the process that wrote a journal under `stamp` still runs. */
function ownerAlive(stamp: string): boolean {
  const pid = Number(stamp.split('-')[0]);
  const now = processStamp(pid);
  if (now !== null) return now === stamp;
  if (existsSync('/proc/self/stat')) return false;
  try {
    process.kill(pid, 0); // no /proc: a live pid is taken to be the owner
    return true;
  } catch {
    return false;
  }
}

/**
 * Settlements a service has to send to billing, appended to a local file before they are queued
 * and marked delivered once billing took them (docs/billing.md, "Crash cases"). A process that
 * dies with settlements unsent (SIGKILL right after answering, or a backlog left by a billing
 * outage) leaves them in its file; the next process of the same service claims the files of
 * owners that are gone and sends them again. Settling is idempotent in billing, so a settlement
 * that had landed after all is never charged twice.
 *
 * Lines are JSON: `{"i":n,"q":<SettleRequest>,"r":<request id>}` for an entry, `{"d":[n,...]}`
 * for delivered ones. Nothing in them is content: reservation ids, token and unit counts. Writes
 * are unbuffered (`write(2)`, no fsync): they survive the process, not the machine.
 */
export class SettlementJournal {
  private readonly stamp: string;
  private readonly instance = ++instances;
  private segment: Segment;
  private readonly segments = new Map<number, Segment>();
  private readonly segmentOf = new Map<number, number>();
  private nextId = 1;
  private segmentNo = 0;
  private claims = 0;
  private readonly claimed: string[] = [];

  private constructor(
    private readonly dir: string,
    private readonly name: string,
    private readonly logger: Logger,
  ) {
    this.stamp = processStamp(process.pid) ?? `${process.pid}-${Date.now()}`;
    this.segment = this.openSegment();
  }

  /** The journal of service `name` in `dir`, or null (logged) where the directory cannot be written. */
  static open(dir: string, name: string, logger: Logger): SettlementJournal | null {
    if (!/^[a-z0-9-]+$/.test(name)) throw new Error(`settlement journal name must be lower-case letters, digits and -: ${name}`);
    try {
      mkdirSync(dir, { recursive: true });
      return new SettlementJournal(dir, name, logger);
    } catch (err) {
      logger.error({ dir, err: (err as Error).message }, 'settlement journal unavailable: settlements unsent at a crash will be lost');
      return null;
    }
  }

  /** Writes an entry; its id marks it delivered later. */
  append(entry: JournalEntry): number {
    const id = this.nextId++;
    this.write(this.segment, JSON.stringify({ i: id, q: entry.request, r: entry.requestId }) + '\n');
    this.segment.open++;
    this.segmentOf.set(id, this.segmentNo);
    if (this.segment.bytes >= SEGMENT_BYTES) this.segment = this.openSegment();
    return id;
  }

  /** Marks entries delivered (or given up on, logged by the caller); a drained old segment is deleted. */
  delivered(ids: number[]): void {
    const bySegment = new Map<number, number[]>();
    for (const id of ids) {
      const no = this.segmentOf.get(id);
      if (no === undefined) continue;
      this.segmentOf.delete(id);
      const list = bySegment.get(no);
      if (list) list.push(id);
      else bySegment.set(no, [id]);
    }
    for (const [no, done] of bySegment) {
      const segment = this.segments.get(no);
      if (!segment) continue;
      segment.open -= done.length;
      if (segment !== this.segment && segment.open === 0) this.dropSegment(no);
      else this.write(segment, JSON.stringify({ d: done }) + '\n');
    }
  }

  /**
   * Claims the files of processes of this service that are gone and returns what they still owed,
   * oldest first. A claimed file is renamed first (two starting replicas never both take it) and
   * deleted once its entries are in this process's own journal.
   */
  claimOrphans(): JournalEntry[] {
    const owed: JournalEntry[] = [];
    const pattern = new RegExp(`^${this.name}\\.(\\d+-\\d+)\\.\\d+[sc]\\d+\\.jsonl$`);
    for (const file of readdirSync(this.dir).sort()) {
      const owner = pattern.exec(file)?.[1];
      if (!owner || owner === this.stamp || ownerAlive(owner)) continue;
      // renamed into this process's own name first: if it dies before settling them, the next one claims them again
      const claimed = this.fileName(`c${++this.claims}`);
      try {
        renameSync(path.join(this.dir, file), claimed);
      } catch {
        continue; // another replica took it
      }
      owed.push(...this.readOwed(claimed));
      this.claimed.push(claimed);
    }
    return owed;
  }

  /** Deletes the claimed files once their entries were appended here again. */
  releaseClaimed(): void {
    for (const file of this.claimed.splice(0)) unlinkSync(file);
  }

  /** At a clean shutdown with nothing owed, the file goes; otherwise it stays for the next process. */
  close(): void {
    for (const [no, segment] of this.segments) {
      if (segment.open === 0) this.dropSegment(no);
      else closeSync(segment.fd);
    }
  }

  private readOwed(file: string): JournalEntry[] {
    const entries = new Map<number, JournalEntry>();
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (!line) continue;
      try {
        const record = JSON.parse(line) as { i?: number; q?: SettleRequest; r?: string; d?: number[] };
        if (record.i !== undefined && record.q && record.r) entries.set(record.i, { request: record.q, requestId: record.r });
        for (const id of record.d ?? []) entries.delete(id);
      } catch {
        // the last line of a process killed mid-write: that entry was never queued
      }
    }
    if (entries.size > 0) this.logger.warn({ file: path.basename(file), settlements: entries.size }, 'settling what a stopped process still owed billing');
    return [...entries.values()];
  }

  private openSegment(): Segment {
    const no = ++this.segmentNo;
    const file = this.fileName(`s${no}`);
    const segment = { file, fd: openSync(file, 'a'), open: 0, bytes: 0 };
    this.segments.set(no, segment);
    return segment;
  }

  /** `<service>.<pid>-<start time>.<instance>s<segment>.jsonl`, or `c<n>` for a file claimed from a stopped process. */
  private fileName(tag: string): string {
    return path.join(this.dir, `${this.name}.${this.stamp}.${this.instance}${tag}.jsonl`);
  }

  private dropSegment(no: number): void {
    const segment = this.segments.get(no)!;
    this.segments.delete(no);
    closeSync(segment.fd);
    if (existsSync(segment.file)) unlinkSync(segment.file);
  }

  private write(segment: Segment, line: string): void {
    try {
      segment.bytes += writeSync(segment.fd, line);
    } catch (err) {
      // a full disk must not fail a request that was served: the settlement still goes out from memory
      this.logger.error({ file: path.basename(segment.file), err: (err as Error).message }, 'settlement journal write failed');
    }
  }
}

/** The journal of service `name` in SETTLEMENT_JOURNAL_DIR, or none for `off` (or an unwritable directory, logged). */
export function openSettlementJournal(dir: string, name: string, logger: Logger): SettlementJournal | null {
  return dir === 'off' ? null : SettlementJournal.open(dir, name, logger);
}

/** The SETTLEMENT_JOURNAL provider of service `name` (see openSettlementJournal). */
export function settlementJournalProvider(dir: string, name: string, logger: Logger): { provide: symbol; useValue: SettlementJournal | null } {
  return { provide: SETTLEMENT_JOURNAL, useValue: openSettlementJournal(dir, name, logger) };
}
