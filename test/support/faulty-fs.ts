import fs from 'node:fs';
import path from 'node:path';
import type { FileOps } from '../../src/core/io/file-ops.js';
import { seededRandom } from './prng.js';

/**
 * Fault injection for file writes, the way SQLite tests its I/O: the real file system, with one
 * call made to fail. A probe run records the calls a write makes; then the write is repeated
 * with a fault at each call in turn (ENOSPC, EIO, and at each write a short write followed by
 * ENOSPC, as a disk filling up does). Writes are also cut into seeded random short pieces, so
 * every write path must loop until every byte is down. The seed is printed on failure;
 * MEDCHAT_SEED=<n> replays it.
 */
export type FaultKind = 'ENOSPC' | 'EIO' | 'short';
type Op = 'open' | 'write' | 'fsync' | 'close' | 'rename';

export interface FaultCase {
  /** 1-based index of the faulted call. */
  at: number;
  op: Op;
  kind: FaultKind;
}

export const SEED = process.env.MEDCHAT_SEED ? Number(process.env.MEDCHAT_SEED) : Math.floor(Math.random() * 2 ** 31);

function errno(code: string): NodeJS.ErrnoException {
  const e = new Error(`${code}: injected fault`) as NodeJS.ErrnoException;
  e.code = code;
  return e;
}

export class FaultyFileOps implements FileOps {
  readonly calls: Op[] = [];
  /** Set once the fault has fired. */
  fired = false;
  private full = false;
  private healed = false;
  private readonly random: () => number;

  /** `full`: the disk is full from the start (every write fails with ENOSPC). */
  constructor(private readonly fault: { seed?: number; at?: number; kind?: FaultKind; full?: boolean } = {}) {
    this.random = seededRandom(fault.seed ?? SEED);
    this.full = fault.full === true;
  }

  /** The disk has room again: no more faults. */
  heal(): void {
    this.healed = true;
    this.full = false;
  }

  private hit(op: Op): boolean {
    this.calls.push(op);
    if (this.healed || this.fault.at !== this.calls.length) return false;
    this.fired = true;
    return true;
  }

  private code(): string {
    return this.fault.kind === 'EIO' ? 'EIO' : 'ENOSPC';
  }

  open(file: string, flags: string, mode?: number): number {
    if (this.hit('open')) throw errno(this.code());
    return fs.openSync(file, flags, mode);
  }

  write(fd: number, buf: Uint8Array, offset: number, length: number): number {
    const piece = Math.min(length, 1 + Math.floor(this.random() * 300));
    if (this.hit('write')) {
      if (this.fault.kind !== 'short') throw errno(this.code());
      this.full = true;
      return fs.writeSync(fd, buf, offset, Math.floor(piece / 2));
    }
    if (this.full) throw errno('ENOSPC');
    return fs.writeSync(fd, buf, offset, piece);
  }

  fsync(fd: number): void {
    if (this.hit('fsync')) throw errno(this.code());
    fs.fsyncSync(fd);
  }

  close(fd: number): void {
    const fail = this.hit('close');
    fs.closeSync(fd); // a failing close still releases the descriptor (as on Linux)
    if (fail) throw errno(this.code());
  }

  rename(from: string, to: string): void {
    if (this.hit('rename')) throw errno(this.code());
    fs.renameSync(from, to);
  }

  unlink(file: string): void {
    fs.unlinkSync(file);
  }
}

/** Every fault to try for a write that made `calls` (from a probe run). */
export function faultCases(calls: readonly Op[]): FaultCase[] {
  const out: FaultCase[] = [];
  calls.forEach((op, i) => {
    for (const kind of op === 'write' ? (['ENOSPC', 'EIO', 'short'] as const) : (['ENOSPC', 'EIO'] as const)) out.push({ at: i + 1, op, kind });
  });
  return out;
}

/** After the last rename only the folder's flush is left: a fault there cannot undo the new file. */
export function afterCommit(c: FaultCase, calls: readonly Op[]): boolean {
  return c.at > calls.lastIndexOf('rename') + 1;
}

/** Leftovers of a write in `dir`: temporary files and locks. */
export function leftovers(dir: string): string[] {
  return fs.existsSync(dir) ? fs.readdirSync(dir).filter((n) => n.endsWith('.tmp') || n.endsWith('.lock')).map((n) => path.join(dir, n)) : [];
}

export function describe(c: FaultCase): string {
  return `fault ${c.kind} at call ${c.at} (${c.op}), seed ${SEED} (replay with MEDCHAT_SEED=${SEED})`;
}
