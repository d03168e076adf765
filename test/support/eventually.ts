/** How long a condition may take to hold: generous, because the suite runs on a loaded machine too. */
const WAIT_MS = 5_000;
const POLL_MS = 10;

/**
 * Waits until `condition` holds: it returns true, or it returns nothing without throwing (so a block
 * of assertions can be the condition). At the deadline the last assertion failure is rethrown, or
 * the wait fails naming `what`.
 */
export async function eventually(
  condition: () => boolean | void | Promise<boolean | void>,
  what: string,
): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    let failure: Error | undefined;
    try {
      if ((await condition()) !== false) return;
    } catch (error) {
      failure = error instanceof Error ? error : new Error(`${what}: ${String(error)}`);
    }
    if (Date.now() > deadline) throw failure ?? new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
