/**
 * The app's cleanup stack: every part pushes its `stop` as it is built, and stopping runs
 * them in reverse (last built, first stopped), whether the app is stopped or failed to start
 * half-way. A failing stop is logged and the rest still run. Stopping twice stops nothing twice.
 */
import type { Logger } from '../log.js';

export class CleanupStack {
  private readonly stops: Array<() => Promise<void>> = [];

  constructor(private readonly logger: Logger) {}

  push(stop: () => Promise<void>): void {
    this.stops.push(stop);
  }

  async stopAll(): Promise<void> {
    for (let stop = this.stops.pop(); stop; stop = this.stops.pop()) {
      try {
        await stop();
      } catch (err) {
        this.logger.error({ err }, 'error while stopping');
      }
    }
  }
}
