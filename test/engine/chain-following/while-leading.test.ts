import assert from 'node:assert/strict';
import { test } from 'node:test';
import { whileLeading } from '../../../src/engine/chain-following/while-leading.js';
import type { Leadership } from '../../../src/store/leadership.js';
import { eventually } from '../../support/eventually.js';

/** A lead the test hands out and takes back by hand. */
class ManualLeadership implements Leadership {
  leading = false;
  private readonly listeners = new Set<(leading: boolean) => void>();
  onChange(listener: (leading: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  set(leading: boolean): void {
    this.leading = leading;
    for (const listener of this.listeners) listener(leading);
  }
  async close(): Promise<void> {
    this.set(false);
  }
}

test('the job runs only while the lead is held, never twice at once, and stops with the follower', async () => {
  const leadership = new ManualLeadership();
  const log: string[] = [];
  let running = 0;
  const follower = whileLeading(
    leadership,
    async () => {
      running += 1;
      assert.equal(running, 1, 'two jobs at once');
      log.push('start');
      await new Promise((resolve) => setTimeout(resolve, 20));
      return {
        async stop() {
          await new Promise((resolve) => setTimeout(resolve, 20));
          running -= 1;
          log.push('stop');
        },
      };
    },
    (error) => assert.fail(String(error)),
  );
  leadership.set(true);
  leadership.set(false);
  leadership.set(true);
  await eventually(() => assert.deepEqual(log, ['start', 'stop', 'start']), 'the second start');
  assert.equal(running, 1);
  await follower.stop();
  assert.deepEqual(log, ['start', 'stop', 'start', 'stop']);
  assert.equal(running, 0);
  leadership.set(true);
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(running, 0, 'a stopped follower starts nothing');
});
