import type { Scenario } from './scenarios.js';

const CONCURRENCY = 16;

export interface ResponseCheck {
  /** Mean body size on the reference target: the bare server answers with a body this large. */
  readonly meanBodyBytes: number;
  /** Paths whose body differs between the targets (same data, so they should agree). */
  readonly differingBodies: number;
}

async function fetchAll(baseUrl: string, paths: readonly string[]): Promise<{ status: number; body: string }[]> {
  const results = new Array<{ status: number; body: string }>(paths.length);
  let next = 0;
  const worker = async () => {
    while (next < paths.length) {
      const index = next++;
      const response = await fetch(`${baseUrl}${paths[index]}`);
      results[index] = { status: response.status, body: await response.text() };
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return results;
}

/**
 * Requests the scenario's verified paths (all of a hot one, a few thousand of a cold one) once from each target
 * before anything is measured: a target that answers errors would otherwise be measured on how fast it fails.
 */
export async function verifyResponses(
  scenario: Scenario,
  targets: readonly { name: string; baseUrl: string }[],
): Promise<ResponseCheck> {
  const answers = await Promise.all(targets.map((target) => fetchAll(target.baseUrl, scenario.verifiedPaths)));
  targets.forEach((target, targetIndex) => {
    const failures = answers[targetIndex]!.map((answer, index) => ({
      ...answer,
      path: scenario.verifiedPaths[index]!,
    })).filter((answer) => answer.status !== 200);
    if (failures.length > 0) {
      const examples = failures.slice(0, 3).map((f) => `  ${f.status} ${f.path} -> ${f.body.slice(0, 120)}`);
      const count = `${failures.length} of ${scenario.verifiedPaths.length} ${scenario.name} requests`;
      throw new Error(`${target.name} answered ${count} with an error:\n${examples.join('\n')}`);
    }
  });
  const reference = answers[0]!;
  const totalBytes = reference.reduce((sum, answer) => sum + Buffer.byteLength(answer.body), 0);
  const meanBodyBytes = Math.round(totalBytes / reference.length);
  let differingBodies = 0;
  for (const other of answers.slice(1)) {
    other.forEach((answer, index) => {
      if (answer.body !== reference[index]!.body) differingBodies++;
    });
  }
  return { meanBodyBytes, differingBodies };
}
