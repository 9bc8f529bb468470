/**
 * The model of an in-process embedder: loaded on first use, so moon starts fast and works without the optional
 * package until it is needed, and run one batch at a time, which bounds memory.
 */
export class LazyModel<Model> {
  private loading: Promise<Model> | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly loadModel: () => Promise<Model>) {}

  /** Runs `work` once every earlier call has settled; a failed call does not stop the ones after it. */
  enqueue<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  load(): Promise<Model> {
    if (!this.loading) {
      this.loading = this.loadModel();
      this.loading.catch(() => {
        this.loading = undefined; // let a later call try again
      });
    }
    return this.loading;
  }

  /** Frees the model if it was loaded; the next `load()` loads it afresh. */
  async release(free: (model: Model) => unknown): Promise<void> {
    const loading = this.loading;
    this.loading = undefined;
    if (!loading) return;
    try {
      await free(await loading);
    } catch {
      // a model that never loaded has nothing to free
    }
  }
}
