import type { SeededRandom } from './seeded-random.js';

/** A uniform random sample of fixed size from a stream of unknown length (Algorithm R). */
export class Reservoir<T> {
  private readonly kept: T[] = [];
  private seen = 0;

  constructor(
    private readonly size: number,
    private readonly random: SeededRandom,
  ) {}

  offer(item: T): void {
    this.seen++;
    if (this.kept.length < this.size) {
      this.kept.push(item);
      return;
    }
    const slot = Math.floor(this.random.fraction() * this.seen);
    if (slot < this.size) this.kept[slot] = item;
  }

  items(): T[] {
    return [...this.kept];
  }
}
