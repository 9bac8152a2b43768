/**
 * `npm run store:migrate -- --from ./data`: copies the embedded store in ./data into the
 * PostgreSQL database named by DATABASE_URL (or `--to <url>`), then verifies the copy (counts,
 * every record, the audit hash chain). Stop the app first: the data directory's lock is taken.
 * Exit 0 copied and verified, 1 refused or failed (the message says why), 2 usage.
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { createLogger } from '../../log.js';
import { describeUrl } from './connection.js';
import { migrateToPostgres } from './migrate.js';

const USAGE = 'Usage: npm run store:migrate -- --from <data dir> [--to <postgres URL>] (default: DATABASE_URL)';

export async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  let from: string | undefined;
  let to: string | undefined;
  try {
    const { values } = parseArgs({ args: argv, options: { from: { type: 'string' }, to: { type: 'string' } } });
    from = values.from;
    to = values.to ?? env.DATABASE_URL;
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (!from || !to) {
    process.stderr.write(`${!from ? '--from is required' : 'set DATABASE_URL or pass --to'}\n${USAGE}\n`);
    return 2;
  }
  const logger = createLogger({ level: env.LOG_LEVEL ?? 'warn' });
  try {
    const r = await migrateToPostgres({ from, url: to, logger });
    const lines = Object.entries(r.counts).map(([name, n]) => `  ${name}: ${n}`);
    process.stdout.write(
      `Copied ${r.records} records from ${from} to ${describeUrl(to)} and verified them:\n${lines.join('\n')}\n` +
        `  audit log: ${r.auditEntries} entries, hash chain verified\n`,
    );
    return 0;
  } catch (err) {
    process.stderr.write(`Not migrated: ${(err as Error).message}\n`);
    return 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2), process.env).then((code) => process.exit(code));
}
