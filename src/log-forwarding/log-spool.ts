import { appendFileSync, mkdirSync, readFileSync, readdirSync, renameSync, rmdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A segment file holds at most this many records, so one read back is small. */
const SEGMENT_RECORDS = 1000;
const SEGMENT = /^(\d{12})\.jsonl$/;
/** Segments are numbered from here, so a folder's older records (a shutdown's, an ended process's) go before. */
const FIRST_SEQUENCE = 500_000_000_000;

const name = (sequence: number) => `${String(sequence).padStart(12, '0')}.jsonl`;

interface Segment {
  sequence: number;
  bytes: number;
  records: number;
}

/**
 * The records that wait beyond the memory queue (SPEC §23): a folder of this process,
 * `<LOG_AGGREGATOR_MAX_DISK_USAGE_PATH>/<node>-<pid>/`, of numbered files of one record's wire text per line,
 * oldest first. Synchronous: it is written only while the receiver is down and memory is full, and a record
 * must be on disk (or counted as dropped) before the next one is taken.
 */
export class LogSpool {
  private segments: Segment[] = [];
  private ready = false;
  bytes = 0;
  records = 0;

  constructor(readonly folder: string) {}

  /** Appends one record; false when it does not fit within `maxBytes` or the folder cannot be written. */
  append(payload: string, maxBytes: number): boolean {
    const bytes = Buffer.byteLength(payload) + 1;
    if (this.bytes + bytes > maxBytes) return false;
    try {
      this.prepare();
      let tail = this.segments[this.segments.length - 1];
      if (!tail || tail.records >= SEGMENT_RECORDS) {
        tail = { sequence: tail ? tail.sequence + 1 : FIRST_SEQUENCE, bytes: 0, records: 0 };
        this.segments.push(tail);
      }
      appendFileSync(join(this.folder, name(tail.sequence)), `${payload}\n`);
      tail.bytes += bytes;
      tail.records++;
    } catch {
      return false;
    }
    this.bytes += bytes;
    this.records++;
    return true;
  }

  /** Writes records older than everything spooled (what waited in memory at a shutdown) before the rest. */
  prepend(payloads: string[]): boolean {
    if (!payloads.length) return true;
    try {
      this.prepare();
      const sequence = (this.segments[0]?.sequence ?? FIRST_SEQUENCE) - 1;
      const text = payloads.map((p) => `${p}\n`).join('');
      writeFileSync(join(this.folder, name(sequence)), text);
      const bytes = Buffer.byteLength(text);
      this.segments.unshift({ sequence, bytes, records: payloads.length });
      this.bytes += bytes;
      this.records += payloads.length;
      return true;
    } catch {
      return false;
    }
  }

  /** The oldest segment's records, removed from the folder (they go back to memory, which delivers them first). */
  takeOldest(): string[] {
    const head = this.segments.shift();
    if (!head) return [];
    this.bytes -= head.bytes;
    this.records -= head.records;
    const file = join(this.folder, name(head.sequence));
    try {
      const lines = readFileSync(file, 'utf8').split('\n').filter((line) => line !== '');
      unlinkSync(file);
      return lines;
    } catch {
      return [];
    }
  }

  /**
   * Takes over the folders that ended processes of this node left under `root` (`<node>-<pid>`, a pid that runs
   * no more): their segments go before this process's own, in their order.
   */
  adoptEnded(root: string, node: string, isRunning: (pid: number) => boolean): number {
    let adopted = 0;
    let folders: string[];
    try {
      folders = readdirSync(root);
    } catch {
      return 0;
    }
    const prefix = `${node}-`;
    for (const folder of folders.sort()) {
      const pid = Number(folder.slice(prefix.length));
      const path = join(root, folder);
      if (!folder.startsWith(prefix) || !Number.isInteger(pid) || path === this.folder || isRunning(pid)) continue;
      try {
        const files = readdirSync(path).filter((f) => SEGMENT.test(f)).sort();
        this.prepare();
        let sequence = (this.segments[0]?.sequence ?? FIRST_SEQUENCE) - files.length;
        const taken: Segment[] = [];
        for (const file of files) {
          const text = readFileSync(join(path, file), 'utf8');
          const records = text.split('\n').filter((line) => line !== '').length;
          renameSync(join(path, file), join(this.folder, name(sequence)));
          taken.push({ sequence: sequence++, bytes: Buffer.byteLength(text), records });
          adopted += records;
        }
        this.segments.unshift(...taken);
        for (const segment of taken) {
          this.bytes += segment.bytes;
          this.records += segment.records;
        }
        rmdirSync(path);
      } catch {
        // An unreadable folder stays where it is; the next start tries again.
      }
    }
    return adopted;
  }

  /**
   * Makes the folder, and takes what it already holds as the oldest records: a process that had this pid before
   * (in a container every server is pid 1) left them.
   */
  prepare(): void {
    if (this.ready) return;
    mkdirSync(this.folder, { recursive: true, mode: 0o700 });
    for (const file of readdirSync(this.folder).filter((f) => SEGMENT.test(f)).sort()) {
      const text = readFileSync(join(this.folder, file), 'utf8');
      const segment = { sequence: Number(SEGMENT.exec(file)![1]), bytes: Buffer.byteLength(text), records: text.split('\n').filter((l) => l !== '').length };
      this.segments.push(segment);
      this.bytes += segment.bytes;
      this.records += segment.records;
    }
    this.ready = true;
  }
}
