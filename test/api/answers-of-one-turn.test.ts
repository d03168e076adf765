/** Answers made in one turn of the event loop go out together at its end, and one failing write loses no other. */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { test } from 'node:test';
import { AnswersOfOneTurn } from '../../src/api/answers-of-one-turn.js';

function fakeResponse(): { response: ServerResponse; destroyedWith: unknown[] } {
  const destroyedWith: unknown[] = [];
  const response = { destroy: (error: unknown) => destroyedWith.push(error) } as unknown as ServerResponse;
  return { response, destroyedWith };
}

test('answers added in one turn are written at its end, in the order they were added', async () => {
  const answers = new AnswersOfOneTurn();
  const written: number[] = [];
  for (const index of [1, 2, 3]) answers.add(fakeResponse().response, () => written.push(index));
  await Promise.resolve();
  assert.equal(written.length, 0, 'written before the turn ended');
  await new Promise(setImmediate);
  assert.deepEqual(written, [1, 2, 3]);
  answers.add(fakeResponse().response, () => written.push(4));
  await new Promise(setImmediate);
  assert.deepEqual(written, [1, 2, 3, 4], 'an answer of a later turn waits for that turn');
});

test('a write that throws drops its own connection and no other answer', async () => {
  const answers = new AnswersOfOneTurn();
  const failing = fakeResponse();
  const healthy = fakeResponse();
  const written: string[] = [];
  const failure = new Error('socket gone');
  answers.add(failing.response, () => {
    throw failure;
  });
  answers.add(healthy.response, () => written.push('healthy'));
  await new Promise(setImmediate);
  assert.deepEqual(written, ['healthy']);
  assert.deepEqual(failing.destroyedWith, [failure]);
  assert.deepEqual(healthy.destroyedWith, []);
});
