/**
 * `npm run store:migrate -- --from ./data`: copies the embedded store in ./data into the
 * PostgreSQL database named by DATABASE_URL (or `--to <url>`) in batches of `--batch` records
 * (default 5,000), printing its progress, then verifies the copy (counts, every record, the
 * audit hash chain). Interrupted, it resumes where it stopped when run again (to-postgres.ts). Stop the app first: the data directory's lock is taken.
 * It needs the database and its leader lock (no replica may run): it says so, waits up to
 * `--wait` seconds (default 60) for both, and gives up after that, copying nothing.
 * Exit 0 copied and verified, 1 refused, failed or gave up (the message says why), 2 usage.
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { createLogger } from '../log.js';
import { describeUrl } from '../store/pg/connection.js';
import { DEFAULT_BATCH, migrateToPostgres, type MigrationProgress } from './to-postgres.js';

const USAGE =
  'Usage: npm run store:migrate -- --from <data dir> [--to <postgres URL>] (default: DATABASE_URL) [--wait <seconds>] (default: 60) [--batch <records>] (default: 5000)';
const DEFAULT_WAIT_S = 60;

export async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  let from: string | undefined;
  let to: string | undefined;
  let waitS = DEFAULT_WAIT_S;
  let batch = DEFAULT_BATCH;
  try {
    const { values } = parseArgs({
      args: argv,
      options: {
        from: { type: 'string' },
        to: { type: 'string' },
        wait: { type: 'string' },
        batch: { type: 'string' },
      },
    });
    from = values.from;
    to = values.to ?? env.DATABASE_URL;
    if (values.wait !== undefined) {
      waitS = Number(values.wait);
      if (!Number.isFinite(waitS) || waitS <= 0)
        throw new Error(`--wait must be a number of seconds, not ${values.wait}`);
    }
    if (values.batch !== undefined) {
      batch = Number(values.batch);
      if (!Number.isInteger(batch) || batch < 1 || batch > 100_000)
        throw new Error(`--batch must be a whole number of records from 1 to 100000, not ${values.batch}`);
    }
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (!from || !to) {
    process.stderr.write(`${!from ? '--from is required' : 'set DATABASE_URL or pass --to'}\n${USAGE}\n`);
    return 2;
  }
  const logger = createLogger({ level: env.LOG_LEVEL ?? 'warn' });
  const where = describeUrl(to);
  // The copy takes the leader's lock, so that no replica writes meanwhile: a running replica,
  // or a database not up yet, would otherwise make it wait without a word, for ever.
  const signal = AbortSignal.timeout(waitS * 1000);
  // The wait's timer keeps running during the copy: only a failure before the first batch is "gave up waiting".
  let copying: MigrationProgress | undefined;
  const printProgress = progressPrinter((line) => process.stdout.write(`${line}\n`));
  try {
    const r = await migrateToPostgres({
      from,
      url: to,
      logger,
      signal,
      batch,
      onProgress: (p) => {
        copying = p;
        printProgress(p);
      },
      onWaiting: () =>
        process.stderr.write(
          `Waiting for ${where}: it is not reachable yet, or a replica holds its lock (stop every replica). ` +
            `Giving up after ${waitS} s.\n`,
        ),
    });
    const lines = Object.entries(r.counts).map(([name, n]) => `  ${name}: ${n}`);
    process.stdout.write(
      `Copied ${r.records} records from ${from} to ${where} and verified them:\n${lines.join('\n')}\n` +
        `  audit log: ${r.auditEntries} entries, hash chain verified\n`,
    );
    return 0;
  } catch (err) {
    if (signal.aborted && !copying) {
      process.stderr.write(
        `Not migrated: gave up after ${waitS} s waiting for ${where} and its lock; nothing was copied. ` +
          'Is the database up, and every replica stopped?\n',
      );
      return 1;
    }
    process.stderr.write(`Not migrated: ${(err as Error).message}\n`);
    // The database now holds part of the source, and the app refuses to lead on it (store/pg/index.ts).
    if (copying)
      process.stderr.write(
        `${count(copying.done)} of ${count(copying.total)} records copied; run the same command again to resume; ` +
          'do not start the app on this database.\n',
      );
    return 1;
  }
}

const count = (n: number) => n.toLocaleString('en-US');

/**
 * The progress lines: where a resumed copy starts, then a line each time another 5% (at least)
 * is committed, and the last batch; a copy of a few records says only its end.
 */
export function progressPrinter(print: (line: string) => void): (p: MigrationProgress) => void {
  let said = -1;
  let resumeSaid = false;
  return (p) => {
    if (!resumeSaid && p.resumedAt > 0) {
      resumeSaid = true;
      print(`Resuming an interrupted copy: ${count(p.resumedAt)} of ${count(p.total)} records were already copied.`);
    }
    const percent = Math.floor((p.done / p.total) * 100);
    if (p.done < p.total && percent < said + 5) return;
    said = percent;
    print(`Copied ${count(p.done)} of ${count(p.total)} records (${percent}%)`);
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2), process.env).then((code) => process.exit(code));
}
