import { ServiceAnswerUnreadable } from './service-answer-unreadable.js';
import { shapeFaults } from './shape-check.js';

/**
 * `value` as the type of its shape, once the shape's reader found no fault in it; throws
 * `ServiceAnswerUnreadable` naming each fault otherwise.
 */
export function readShape<Answer>(shape: object, value: unknown, what: string): Answer {
  const faults = shapeFaults(shape, value);
  if (faults.length > 0) throw new ServiceAnswerUnreadable(what, faults);
  return value as Answer;
}
