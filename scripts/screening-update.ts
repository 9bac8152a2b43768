/**
 * `npm run screening:update [-- <base URL> [<directory>]]`: refreshes the bundled sanctions snapshot
 * (src/screening/snapshot) from the upstream lists on GitHub (or the base URL given), see
 * src/screening/update.ts.
 */
import { SNAPSHOT_DIR, UPSTREAM_LISTS_URL } from '../src/screening/load.js';
import { updateSnapshot } from '../src/screening/update.js';

const [baseUrl = UPSTREAM_LISTS_URL, dir = SNAPSHOT_DIR] = process.argv.slice(2);
updateSnapshot({ baseUrl, dir, now: Date.now })
  .then((m) => {
    console.log(`sanctions snapshot updated: ${m.count} addresses from ${m.source} (${m.date}), sha256 ${m.sha256}`);
  })
  .catch((err: unknown) => {
    console.error(`screening:update failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  });
