/** Runs a long-lived CLI action (a --follow) until Ctrl-C or SIGTERM aborts its signal. */
export async function untilInterrupted(run: (signal: AbortSignal) => Promise<void>): Promise<void> {
  const stopper = new AbortController();
  const stop = (): void => stopper.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    await run(stopper.signal);
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}
