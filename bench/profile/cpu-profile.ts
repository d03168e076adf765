import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The parts of a V8 .cpuprofile (as written by `node --cpu-prof`) that a summary needs. */
interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly children?: readonly number[];
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  /** Microseconds before each sample, the first counted from the start of profiling. */
  readonly timeDeltas: readonly number[];
}

export interface FrameShare {
  readonly frame: string;
  /** Percent of the busy samples. */
  readonly selfPercent: number;
  readonly totalPercent: number;
}

export interface ProfileSummary {
  /** Samples in which the process was doing something; the percentages are of these. */
  readonly busySamples: number;
  readonly idlePercent: number;
  readonly topSelf: readonly FrameShare[];
  /** Self time grouped by where the code lives: a package, node internals, the project's own files, GC, idle. */
  readonly byOrigin: readonly { readonly origin: string; readonly selfPercent: number }[];
}

function shortLocation(url: string, projectRoot: string): string {
  const path = url.startsWith('file://') ? fileURLToPath(url) : url;
  const inModules = path.lastIndexOf('node_modules/');
  if (inModules >= 0) return path.slice(inModules + 'node_modules/'.length);
  return path.startsWith(projectRoot) ? path.slice(projectRoot.length + 1) : path;
}

function frameName(node: ProfileNode, projectRoot: string): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const name = functionName || '(anonymous)';
  return url ? `${name} ${shortLocation(url, projectRoot)}:${lineNumber + 1}` : name;
}

function originOf(node: ProfileNode, projectRoot: string): string {
  const { url, functionName } = node.callFrame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node internals';
  const location = shortLocation(url, projectRoot);
  if (url.includes('node_modules/')) {
    const parts = location.split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  return location.split('/').slice(0, 2).join('/');
}

function percent(count: number, total: number): number {
  return Math.round((count / total) * 1000) / 10;
}

/**
 * `skipMs` leaves out the first milliseconds of the profile (start-up and warm-up), so the summary describes the
 * measured load only.
 */
export function summarizeCpuProfile(file: string, projectRoot: string, skipMs = 0, top = 15): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);

  const self = new Map<string, number>();
  const total = new Map<string, number>();
  const origins = new Map<string, number>();
  let idle = 0;
  let counted = 0;
  let elapsedMicros = 0;
  for (const [index, sampleId] of profile.samples.entries()) {
    elapsedMicros += profile.timeDeltas[index] ?? 0;
    if (elapsedMicros < skipMs * 1000) continue;
    counted++;
    const leaf = byId.get(sampleId)!;
    if (leaf.callFrame.functionName === '(idle)') {
      idle++;
      continue;
    }
    const leafName = frameName(leaf, projectRoot);
    self.set(leafName, (self.get(leafName) ?? 0) + 1);
    const origin = originOf(leaf, projectRoot);
    origins.set(origin, (origins.get(origin) ?? 0) + 1);
    // A recursive function appears several times on one stack but spent the sample once.
    const onStack = new Set<string>();
    for (let id: number | undefined = sampleId; id !== undefined; id = parentOf.get(id)) {
      onStack.add(frameName(byId.get(id)!, projectRoot));
    }
    for (const name of onStack) total.set(name, (total.get(name) ?? 0) + 1);
  }

  const samples = counted - idle;
  const topSelf = [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([frame, count]) => ({
      frame,
      selfPercent: percent(count, samples),
      totalPercent: percent(total.get(frame) ?? count, samples),
    }));
  const byOrigin = [...origins.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([origin, count]) => ({ origin, selfPercent: percent(count, samples) }));
  return { busySamples: samples, idlePercent: percent(idle, counted), topSelf, byOrigin };
}

export function formatProfileSummary(title: string, summary: ProfileSummary): string {
  const lines = [
    `${title}: ${summary.busySamples} busy samples, idle ${summary.idlePercent}% of the time; ` +
      'shares are of the busy time.',
    '',
    '| self % | total % | frame |',
    '|---:|---:|---|',
  ];
  for (const share of summary.topSelf) {
    lines.push(`| ${share.selfPercent.toFixed(1)} | ${share.totalPercent.toFixed(1)} | \`${share.frame}\` |`);
  }
  const origins = summary.byOrigin.slice(0, 10).map((share) => `${share.origin} ${share.selfPercent}%`);
  lines.push('', `Self time by origin: ${origins.join(', ')}`);
  return lines.join('\n');
}
