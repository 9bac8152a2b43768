/** The app's version, from the package.json beside src/ (dist/ gets its own: scripts/build.mjs). */
import { readFileSync } from 'node:fs';

export const VERSION: string = (() => {
  try {
    return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string })
      .version;
  } catch {
    return 'unknown';
  }
})();
