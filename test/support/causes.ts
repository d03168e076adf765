import type { TransitionCause } from '../../src/domain/transition-cause.js';

/** The cause tests give orders they create, as a user's quote request would. */
export const CREATION_CAUSE: TransitionCause = {
  source: 'request',
  reason: 'requestQuote',
  requestId: '6f1c3a52-0f4e-4c1b-9d51-2b8e0f3a7c11',
};

/** The cause tests give the moves they make by hand, standing in for the chain watcher. */
export const MOVE_CAUSE: TransitionCause = {
  source: 'chain',
  reason: 'fundingSeen',
  chain: 'ethereum',
  txId: '0x6c0e2d6c5e2c7b4a1f9d3e8b7a6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c',
  blockHeight: 9_230_001,
  blockHash: '0x1d59ff54b1eb26b013ce3cb5fc9dab3705b415a67127a003c3e61eb445bb8df2',
};
