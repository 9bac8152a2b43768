/** A leader for the failover bench: opens the PostgreSQL store (takes the lock), says LEADING, then waits to be killed. */
import { openPgStore } from '../src/store/pg/index.js';

await openPgStore({ url: process.env.DATABASE_URL! });
process.stdout.write('LEADING\n');
setInterval(() => {}, 1_000);
