import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { FdWriter } from '../../src/platform/fd-writer.js';
import { REPO_ROOT } from '../helpers/processes.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const errno = (code: string): NodeJS.ErrnoException => Object.assign(new Error(code), { code });

/** A stream that records what is written to it, standing in for process.stdout. */
function recordingStream(): { stream: NodeJS.WriteStream; written: () => string } {
  const chunks: Buffer[] = [];
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return { stream: stream as unknown as NodeJS.WriteStream, written: () => Buffer.concat(chunks).toString('utf8') };
}

describe('FdWriter: output written with write(2), the stream made only where it is needed', () => {
  it('writes the whole text to the descriptor, UTF-8 included, without making the stream', () => {
    const file = path.join(makeTempDir(), 'out.txt');
    const fd = fs.openSync(file, 'w');
    let made = 0;
    const writer = new FdWriter(
      fd,
      () => {
        made++;
        return process.stdout;
      },
      () => {},
    );
    writer.write('ID  SUBJECT\n');
    writer.write('1   café ✓ 日本\n');
    fs.closeSync(fd);
    expect(fs.readFileSync(file, 'utf8')).toBe('ID  SUBJECT\n1   café ✓ 日本\n');
    expect(made).toBe(0);
  });

  it('goes on after a short write, and hands what EAGAIN left to the stream, with every later write after it', async () => {
    const bytes: Buffer[] = [];
    let calls = 0;
    // Three bytes a time, then the descriptor is full.
    const write = (_fd: number, buffer: Buffer, offset: number): number => {
      if (++calls > 3) throw errno('EAGAIN');
      const part = buffer.subarray(offset, offset + 3);
      bytes.push(Buffer.from(part));
      return part.length;
    };
    const recorded = recordingStream();
    const failures: string[] = [];
    const writer = new FdWriter(
      1,
      () => recorded.stream,
      (error) => failures.push(error.code ?? ''),
      write,
    );
    writer.write('abcdefghijklmnop\n');
    writer.write('second\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(Buffer.concat(bytes).toString()).toBe('abcdefghi');
    expect(recorded.written()).toBe('jklmnop\nsecond\n');
    expect(failures).toEqual([]);
    expect(calls).toBe(4);
  });

  it('reports a failed write (EPIPE: the reader went away) and a failing stream to its handler', () => {
    const failures: string[] = [];
    const recorded = recordingStream();
    const writer = new FdWriter(
      1,
      () => recorded.stream,
      (error) => failures.push(error.code ?? ''),
      () => {
        throw errno('EPIPE');
      },
    );
    writer.write('lost\n');
    expect(failures).toEqual(['EPIPE']);
    expect(recorded.written()).toBe('');
    // Once a command has the stream, its errors reach the same handler.
    writer.toStream().emit('error', errno('EIO'));
    expect(failures).toEqual(['EPIPE', 'EIO']);
  });

  it('a command that asked for the stream gets everything through it, in order', async () => {
    const recorded = recordingStream();
    let direct = 0;
    const writer = new FdWriter(
      1,
      () => recorded.stream,
      () => {},
      () => {
        direct++;
        return 0;
      },
    );
    const stream = writer.toStream();
    stream.write('drawn\n');
    writer.write('text\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(recorded.written()).toBe('drawn\ntext\n');
    expect(direct).toBe(0);
  });

  it('a real non-blocking pipe that fills up: the rest goes through the stream, whole and in order', async () => {
    // The child makes process.stdout first, which sets its pipe non-blocking (libuv), then writes
    // 4 MiB through an FdWriter while the parent is not reading: write(2) fails with EAGAIN part-way.
    const dir = makeTempDir();
    const script = path.join(dir, 'child.mjs');
    fs.writeFileSync(
      script,
      `import fs from 'node:fs';
import { FdWriter } from ${JSON.stringify(path.join(REPO_ROOT, 'dist/src/platform/fd-writer.js'))};
const stdout = process.stdout;
const failures = [];
const writer = new FdWriter(1, () => stdout, (error) => failures.push(error.code));
writer.write('a'.repeat(4 * 1024 * 1024) + '\\n');
fs.writeSync(2, JSON.stringify({ queued: stdout.writableLength, failures }) + '\\n');
writer.write('last line\\n');
`,
    );
    const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.pause();
    const report = await new Promise<{ queued: number; failures: string[] }>((resolve) => {
      let text = '';
      child.stderr.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        if (text.endsWith('\n')) resolve(JSON.parse(text) as { queued: number; failures: string[] });
      });
    });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stdout.resume();
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(report.failures).toEqual([]);
    // The fallback was taken: part of the text waited in the stream.
    expect(report.queued).toBeGreaterThan(0);
    expect(code).toBe(0);
    const out = Buffer.concat(chunks).toString();
    expect(out.length).toBe(4 * 1024 * 1024 + 1 + 'last line\n'.length);
    expect(out === `${'a'.repeat(4 * 1024 * 1024)}\nlast line\n`).toBe(true);
  });
});
