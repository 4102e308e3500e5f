/**
 * Waits for `work` at most `ms`: true when it settled in time (its rejection is the caller's to
 * see elsewhere, never thrown here), false when the time ran out first. The timer never keeps
 * the process alive.
 */
export async function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    timer.unref();
  });
  try {
    return await Promise.race([
      work.then(
        () => true as const,
        () => true as const,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
