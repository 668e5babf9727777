/**
 * One read shared by every caller: while it is in flight, and afterwards for at least `minMs`, or `factor` times as
 * long as it took when it is slow. The dashboard's reads run on the connection claims wait for, and open tabs poll
 * every few seconds; a long history makes a read slow (counting a million rows, a full metrics sample), so a read
 * kept `factor` times its duration takes at most about `1 / factor` of the database's time, whatever the tabs and the
 * history. A failed read is not kept: its callers get the error, and the next call reads again.
 */
export class SharedRead<T> {
  private current: { freshUntil: number; value: Promise<T> } | undefined;

  constructor(
    private readonly read: () => Promise<T>,
    private readonly minMs: number,
    private readonly factor: number,
  ) {}

  /** The kept value, or a new read's. */
  get(): Promise<T> {
    const startedAt = Date.now();
    if (this.current && startedAt < this.current.freshUntil) return this.current.value;
    const entry = { freshUntil: Infinity, value: this.read() };
    this.current = entry;
    entry.value.then(
      () => {
        const done = Date.now();
        entry.freshUntil = done + Math.max(this.minMs, (done - startedAt) * this.factor);
      },
      () => {
        if (this.current === entry) this.current = undefined;
      },
    );
    return entry.value;
  }

  /** Forgets the kept value (a write the next read must show); a read in flight still answers its callers. */
  invalidate(): void {
    this.current = undefined;
  }
}

/**
 * A `SharedRead` per key (a queue, a job id), for reads every open tab of one page repeats at each poll. At most
 * `maxKeys` are kept: the oldest key is dropped first, so an operator browsing many jobs does not grow the map.
 */
export class SharedReads<T> {
  private readonly reads = new Map<string, SharedRead<T>>();

  constructor(
    private readonly read: (key: string) => Promise<T>,
    private readonly minMs: number,
    private readonly factor: number,
    private readonly maxKeys = 100,
  ) {}

  /** The kept value of `key`, or a new read's. */
  get(key: string): Promise<T> {
    let shared = this.reads.get(key);
    if (!shared) {
      if (this.reads.size >= this.maxKeys) this.reads.delete(this.reads.keys().next().value as string);
      shared = new SharedRead(() => this.read(key), this.minMs, this.factor);
      this.reads.set(key, shared);
    }
    return shared.get();
  }

  /** Forgets every kept value (an action the next read must show). */
  invalidate(): void {
    this.reads.clear();
  }
}
