import { lazyBuiltin } from '../platform/lazy-builtin.js';
import fs from 'node:fs';
import path from 'node:path';
import { isNodeError, TeamdError } from '../errors.js';
import type { Message } from '../contracts/message.js';
import { ensurePrivateDir } from '../fs/private-dir.js';
import { readTextIfExists } from '../fs/read-text.js';
import { entropy } from '../platform/random-id.js';

/**
 * The secret that proves a protocol message came from the person (the CLI) or the daemon: an
 * HMAC-SHA256 over the message's fields with a key kept in the state folder (0600), which a
 * teammate's sandboxed commands cannot see. A line a command appended to an inbox carries no
 * valid signature, so it grants nothing. Without a sandbox the key is within a command's reach:
 * then this only stops accidents (documented in docs/trust-model.md).
 */
export class ProtocolKey {
  private key: Buffer | null = null;

  constructor(private readonly file: string) {}

  sign(message: Pick<Message, 'id' | 'type' | 'from' | 'to' | 'content' | 'requestId' | 'approve'>): string {
    return lazyBuiltin.crypto().createHmac('sha256', this.load()).update(canonical(message)).digest('hex');
  }

  verify(message: Message): boolean {
    const sig = (message as { sig?: unknown }).sig;
    if (typeof sig !== 'string' || !/^[0-9a-f]{64}$/.test(sig)) return false;
    let expected: string;
    try {
      expected = this.sign(message);
    } catch {
      return false;
    }
    return lazyBuiltin.crypto().timingSafeEqual(Buffer.from(sig, 'hex'), Buffer.from(expected, 'hex'));
  }

  /** Reads the key, creating it once (whole, by an exclusive link, so two first users agree on one key). */
  private load(): Buffer {
    if (this.key) return this.key;
    let found: Buffer | null;
    try {
      found = this.read();
    } catch (error) {
      throw keyError(this.file, error);
    }
    if (found) {
      this.key = found;
      return found;
    }
    ensurePrivateDir(path.dirname(this.file));
    const temp = `${this.file}.${process.pid}.${entropy.hex(4)}.tmp`;
    fs.writeFileSync(temp, lazyBuiltin.crypto().randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
    try {
      fs.linkSync(temp, this.file);
    } catch (error) {
      if (!isNodeError(error, 'EEXIST')) throw keyError(this.file, error);
    } finally {
      fs.rmSync(temp, { force: true });
    }
    const made = this.read();
    if (made === null) throw keyError(this.file, new Error('it was removed as soon as it was made'));
    this.key = made;
    return made;
  }

  /** The key, or null when there is no key file. */
  private read(): Buffer | null {
    const raw = readTextIfExists(this.file);
    if (raw === null) return null;
    const hex = raw.trim();
    if (!/^[0-9a-f]{64}$/.test(hex)) throw new TeamdError('IO', `${this.file} is not a teamd protocol key (64 hex digits); remove it and restart the daemon`);
    return Buffer.from(hex, 'hex');
  }
}

/** A key file's 64 hex digits, or null when it is missing or not a key (nothing is created). */
export function readKeyHex(file: string): string | null {
  try {
    const hex = (readTextIfExists(file) ?? '').trim();
    return /^[0-9a-f]{64}$/.test(hex) ? hex : null;
  } catch {
    return null;
  }
}

function canonical(message: Pick<Message, 'id' | 'type' | 'from' | 'to' | 'content' | 'requestId' | 'approve'>): string {
  return JSON.stringify([message.id, message.type, message.from, message.to, message.requestId ?? null, message.approve ?? null, message.content]);
}

function keyError(file: string, error: unknown): TeamdError {
  return new TeamdError('IO', `cannot read or create the protocol key ${file}: ${(error as Error).message}`, { cause: error });
}
