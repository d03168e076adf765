/**
 * Which cache keys carry each tag. Most tags belong to one key (an order's answer by id, an invoice's lookup),
 * so a tag's single key is kept as it is and a Set is made only for the second: a Set per tag cost about 250
 * bytes of heap, as much as a third of a kept answer.
 */
export class KeysByTag {
  private readonly keys = new Map<string, string | Set<string>>();

  add(tag: string, key: string): void {
    const keys = this.keys.get(tag);
    if (keys === undefined) this.keys.set(tag, key);
    else if (typeof keys === 'string') {
      if (keys !== key) this.keys.set(tag, new Set([keys, key]));
    } else keys.add(key);
  }

  remove(tag: string, key: string): void {
    const keys = this.keys.get(tag);
    if (keys === key) this.keys.delete(tag);
    else if (typeof keys === 'object') {
      keys.delete(key);
      if (keys.size === 1) this.keys.set(tag, keys.values().next().value as string);
    }
  }

  /** A copy: the caller may remove keys while it walks them. */
  keysOf(tag: string): string[] {
    const keys = this.keys.get(tag);
    if (keys === undefined) return [];
    return typeof keys === 'string' ? [keys] : [...keys];
  }

  clear(): void {
    this.keys.clear();
  }
}
