import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startPeriodicTask } from '../../../src/engine/operations/periodic-task.js';
import { eventually } from '../../support/eventually.js';

test('startPeriodicTask runs at once, repeats, never overlaps, reports failures and stops cleanly', async () => {
  let running = 0;
  let overlapped = false;
  let runs = 0;
  const errors: unknown[] = [];
  const task = startPeriodicTask(
    async () => {
      running += 1;
      overlapped ||= running > 1;
      runs += 1;
      await sleep(15);
      running -= 1;
      if (runs === 2) throw new Error('second run fails');
    },
    { intervalMs: 5, onError: (error) => errors.push(error) },
  );
  await eventually(() => runs >= 3, 'a third run');
  await task.stop();
  const runsAtStop = runs;
  assert.equal(overlapped, false);
  assert.equal(running, 0, 'stop waited for the run in progress');
  assert.equal(errors.length, 1);
  await sleep(30);
  assert.equal(runs, runsAtStop, 'no run after stop');
});

test('startPeriodicTask waits firstRunAfterMs before the first run', async () => {
  let runs = 0;
  const task = startPeriodicTask(async () => void (runs += 1), {
    intervalMs: 1000,
    firstRunAfterMs: 40,
    onError: () => {},
  });
  await sleep(15);
  assert.equal(runs, 0);
  await sleep(60);
  assert.equal(runs, 1);
  await task.stop();
});
