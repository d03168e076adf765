import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

/** Written last, after a cached dataset is complete: its absence means the dataset must be (re)built. */
export interface DatasetMarker {
  readonly generatorVersion: number;
  readonly orders: number;
  readonly builtAt: string;
  readonly buildSeconds: number;
  /** Byte size, for file datasets (the snapshot): a truncated file is not reused. */
  readonly bytes?: number;
}

export function readMarker(file: string): DatasetMarker | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as DatasetMarker;
  } catch {
    return undefined;
  }
}

export function markerMatches(marker: DatasetMarker | undefined, generatorVersion: number, orders: number): boolean {
  return marker !== undefined && marker.generatorVersion === generatorVersion && marker.orders === orders;
}

export function writeMarker(file: string, marker: DatasetMarker): void {
  writeFileSync(file, `${JSON.stringify(marker, null, 2)}\n`);
}

export function removeMarker(file: string): void {
  rmSync(file, { force: true });
}
