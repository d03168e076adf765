import type { Leadership } from '../../store/leadership.js';

/** A job started when the lead is won; `stop` must end its work before it resolves. */
export interface LeaderJob {
  stop(): Promise<void>;
}

export interface WhileLeading {
  /** Stops following the lead and stops the job if it runs; the leadership itself stays open. */
  stop(): Promise<void>;
}

/**
 * Runs the job `start` begins only while `leadership` leads: started on winning the lead, stopped on
 * losing it. Starts and stops are serialized, so a quick loss and regain never runs two jobs at once.
 */
export function whileLeading(
  leadership: Leadership,
  start: () => Promise<LeaderJob>,
  onError: (error: unknown) => void,
): WhileLeading {
  let job: LeaderJob | undefined;
  let queue: Promise<void> = Promise.resolve();
  let stopped = false;

  const follow = (leading: boolean) => {
    queue = queue.then(async () => {
      try {
        if (leading && job === undefined && !stopped && leadership.leading) job = await start();
        if ((!leading || stopped) && job !== undefined) {
          const running = job;
          job = undefined;
          await running.stop();
        }
      } catch (error) {
        onError(error);
      }
    });
  };
  const unsubscribe = leadership.onChange(follow);
  if (leadership.leading) follow(true);

  return {
    async stop() {
      stopped = true;
      unsubscribe();
      follow(false);
      await queue;
    },
  };
}
