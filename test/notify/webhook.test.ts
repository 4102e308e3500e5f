import { describe, expect, it } from 'vitest';
import type { Notice, WebhookTarget } from '../../src/contracts/notifications.js';
import { fetchPost, MAX_RETRY_WAIT_MS, retryAfterOf, sendNotice, webhookBody } from '../../src/notify/webhook.js';
import { waitFor } from '../helpers/wait.js';
import { startReceiver } from '../helpers/webhook-receiver.js';

const notice: Notice = {
  key: 'task_failed:3:1',
  kind: 'task_failed',
  at: '2026-12-08T00:00:00.000Z',
  title: 'task 3 failed (alice): <@U123> & co',
  text: 'why',
  teammate: 'alice',
  task: 3,
};
const target = (url: string, extra: Partial<WebhookTarget> = {}): WebhookTarget => ({ url, format: 'json', headers: {}, ...extra });

/** The waits asked for, taken at once: what the schedule is, without the test waiting it out. */
function recordingSleep(): { waits: number[]; sleep: (ms: number) => Promise<void> } {
  const waits: number[] = [];
  return { waits, sleep: async (ms) => void waits.push(ms) };
}

const options = (sleep: (ms: number) => Promise<void>, extra: { attempts?: number; timeoutMs?: number; signal?: AbortSignal } = {}) => ({
  attempts: extra.attempts ?? 6,
  timeoutMs: extra.timeoutMs ?? 5_000,
  signal: extra.signal ?? new AbortController().signal,
  post: fetchPost,
  sleep,
  team: 'demo',
});

describe('sending a notice to a webhook (a real HTTP server on loopback)', () => {
  it('tries a busy or broken receiver again with waits that double (or its Retry-After), and gives up on a refusal at once', async () => {
    const flaky = await startReceiver([500, 503, 200]);
    const { waits, sleep } = recordingSleep();
    expect(await sendNotice(target(flaky.url('/a'), { headers: { authorization: 'Bearer x' } }), notice, options(sleep))).toEqual({ ok: true, attempts: 3 });
    expect(waits).toEqual([1000, 2000]);
    expect(flaky.received.map((r) => JSON.parse(r.body) as unknown)).toEqual([
      { team: 'demo', ...notice },
      { team: 'demo', ...notice },
      { team: 'demo', ...notice },
    ]);
    expect(flaky.received[0]!.headers.authorization).toBe('Bearer x');

    const limited = await startReceiver([429, 200]);
    const limitedSleep = recordingSleep();
    expect(await sendNotice(target(limited.url('/b')), notice, options(limitedSleep.sleep))).toEqual({ ok: true, attempts: 2 });
    expect(limitedSleep.waits).toEqual([1000]);

    const refusing = await startReceiver([404]);
    const refusedSleep = recordingSleep();
    expect(await sendNotice(target(refusing.url('/c')), notice, options(refusedSleep.sleep))).toEqual({
      ok: false,
      attempts: 1,
      error: 'the webhook answered 404',
    });
    expect(refusedSleep.waits).toEqual([]);

    const down = await startReceiver([500]);
    const downSleep = recordingSleep();
    expect(await sendNotice(target(down.url('/d')), notice, options(downSleep.sleep, { attempts: 12 }))).toEqual({
      ok: false,
      attempts: 12,
      error: 'the webhook answered 500',
    });
    expect(down.received.length).toBe(12);
    // The bound: doubling stops at the longest wait.
    expect(Math.max(...downSleep.waits)).toBe(MAX_RETRY_WAIT_MS);
  });

  it('counts a receiver that never answers as a failed try at the timeout, one nobody listens on as unreachable, and ends at once when the daemon stops', async () => {
    const stalling = await startReceiver(['stall']);
    const { sleep } = recordingSleep();
    expect(await sendNotice(target(stalling.url('/s')), notice, options(sleep, { attempts: 2, timeoutMs: 200 }))).toEqual({
      ok: false,
      attempts: 2,
      error: 'no answer within 200 ms',
    });
    const nobody = await sendNotice(target('http://127.0.0.1:1/x'), notice, options(sleep, { attempts: 1 }));
    expect(nobody).toMatchObject({ ok: false, attempts: 1 });
    expect(nobody.error).toMatch(/^could not reach the webhook: /);

    const stop = new AbortController();
    const sending = sendNotice(target(stalling.url('/t')), notice, options(sleep, { timeoutMs: 60_000, signal: stop.signal }));
    const before = stalling.received.length;
    await waitFor(() => stalling.received.length > before || null, 'the POST under way');
    stop.abort();
    expect(await sending).toMatchObject({ ok: false, interrupted: true });
  });

  it("writes Slack's text with its markup escaped, and reads Retry-After as seconds or a date", () => {
    expect(JSON.parse(webhookBody({ format: 'slack' }, notice, 'my <team>'))).toEqual({
      text: '*[teamd my &lt;team&gt;] task 3 failed (alice): &lt;@U123&gt; &amp; co*\nwhy',
    });
    expect(retryAfterOf('3', 0)).toBe(3000);
    expect(retryAfterOf(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(retryAfterOf('soon', 0)).toBeNull();
    expect(retryAfterOf(null, 0)).toBeNull();
  });
});
