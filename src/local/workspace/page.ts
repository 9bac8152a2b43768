/**
 * The page's own files, from src/local/static/: index.html at `/`, its icon also at
 * `/favicon.ico`, and its script modules, style sheet and icon at `/local/<name>`. The folder is read once at start and each file it held then
 * gets its own literal route: no path from a request is ever joined to the folder, so nothing
 * else can be reached (`..`, encoded slashes, subfolders), nor the folder's type-checking
 * files (.d.ts, tsconfig.json), which are not for the browser.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import type { Route } from '../../http/server.js';

const STATIC = new URL('../static/', import.meta.url);

/** The types a browser needs for each kind of file served; a module script must be JavaScript. */
const SERVED = new Map([
  ['.js', 'text/javascript; charset=utf-8'],
  ['.css', 'text/css; charset=utf-8'],
  ['.svg', 'image/svg+xml'],
]);

interface PageFile {
  type: string;
  body: Buffer;
}

function send(res: ServerResponse, f: PageFile): void {
  res.writeHead(200, {
    'content-type': f.type,
    'content-length': f.body.length,
    'cache-control': 'no-store',
    // The page runs only its own scripts; message text can never become markup or script.
    'content-security-policy':
      "default-src 'self'; img-src * data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'",
    'x-content-type-options': 'nosniff',
  });
  res.end(f.body);
}

/** The type a page file is served with, or undefined if it is not for the browser. */
export function servedType(name: string): string | undefined {
  // Plain names only, so a name is always one literal path segment.
  if (!/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/.test(name)) return undefined;
  return SERVED.get(name.slice(name.lastIndexOf('.')));
}

/** GET `/` and GET `/local/<name>` for each file of the folder served to the browser. */
export function pageRoutes(dir: URL = STATIC): Route[] {
  const page = (name: string, type: string): Route => {
    const f: PageFile = { type, body: readFileSync(new URL(name, dir)) };
    return {
      method: 'GET',
      path: name === 'index.html' ? '/' : `/local/${name}`,
      handler: (_req, res) => send(res, f),
    };
  };
  // Browsers ask for /favicon.ico whatever the page links: the page's icon answers there too.
  const routes = [
    page('index.html', 'text/html; charset=utf-8'),
    { ...page('favicon.svg', 'image/svg+xml'), path: '/favicon.ico' },
  ];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const type = entry.isFile() ? servedType(entry.name) : undefined;
    if (type) routes.push(page(entry.name, type));
  }
  return routes;
}
