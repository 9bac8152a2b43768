/**
 * `npm run test:quick`: the domain and unit tests alone (test/quick-files.ts says which), for the
 * change-test loop: no app boot, no PostgreSQL, no browser, no child process. `npm test` runs them
 * all, these included.
 */
import { defineConfig } from 'vitest/config';
import { quickTestFiles } from './test/quick-files.js';
import { shared } from './vitest.config.js';

export default defineConfig({ test: { ...shared, include: quickTestFiles() } });
