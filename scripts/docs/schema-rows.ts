/**
 * A zod schema as the rows of a reference table: one row per key (dotted path), with its type,
 * its description and its default. zod's own JSON Schema export does the walking of the schema
 * (`z.toJSONSchema`, input side: what a person writes); defaults are read from what the schema
 * actually produces for a minimal input, so the page shows what the app applies, not a copy.
 */
import { z } from 'zod';

export interface Row {
  path: string;
  type: string;
  description: string;
  default?: string;
}

/** The part of JSON Schema this renderer reads, plus the `unit` and `keyName` metadata our schemas add. */
interface Node {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  description?: string;
  properties?: Record<string, Node>;
  required?: string[];
  additionalProperties?: Node | boolean;
  propertyNames?: Node & { title?: string };
  items?: Node;
  anyOf?: Node[];
  oneOf?: Node[];
  minimum?: number;
  maximum?: number;
  unit?: string;
  /** The name of a catch-all's keys (`<job>`). */
  keyName?: string;
}

const UNITS: Record<string, string> = {
  duration: 'duration (`90s`, `30m`, `2h`, `1d`)',
  amount: 'amount (decimal)',
  principal: 'Slack user id, user-group id or `"*"`',
  channel: 'Slack channel id',
  cron: 'cron expression (`0 8 * * *`)',
};

export function typeOf(n: Node): string {
  if (n.unit && UNITS[n.unit]) return UNITS[n.unit]!;
  if (n.enum) return n.enum.map((v) => `\`${String(v)}\``).join(' | ');
  if (n.const !== undefined) return `\`${String(n.const)}\``;
  const alts = n.anyOf ?? n.oneOf;
  if (alts) return [...new Set(alts.map(typeOf))].join(' or ');
  if (n.type === 'array' && n.items) return `list of ${typeOf(n.items)}`;
  if (n.type === 'integer' && n.minimum !== undefined && n.maximum !== undefined)
    return `whole number, ${n.minimum} to ${n.maximum}`;
  if (n.type === 'object' && n.propertyNames)
    return `map of ${n.propertyNames.title ?? 'name'} to ${typeof n.additionalProperties === 'object' ? typeOf(n.additionalProperties) : 'any'}`;
  if (Array.isArray(n.type)) return n.type.join(' or ');
  return n.type ?? 'any';
}

/** `{ a: { b: 1 } }` read at `a.b`; `<currency>` segments read the first key present, else nothing. */
function at(value: unknown, path: string[]): unknown {
  let v = value;
  for (const seg of path) {
    if (v === null || typeof v !== 'object') return undefined;
    if (seg.startsWith('<')) return undefined;
    v = (v as Record<string, unknown>)[seg];
  }
  return v;
}

const MS: Array<[number, string]> = [
  [86_400_000, 'd'],
  [3_600_000, 'h'],
  [60_000, 'm'],
  [1000, 's'],
];

export function showDefault(v: unknown, unit: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  if (unit === 'duration' && typeof v === 'number') {
    const [size, letter] = MS.find(([size]) => v % size === 0) ?? [1000, 's'];
    return `\`${v / size}${letter}\``;
  }
  if (Array.isArray(v) && v.length === 0) return 'none';
  if (v !== null && typeof v === 'object' && Object.keys(v).length === 0) return 'none';
  return `\`${typeof v === 'string' ? v : JSON.stringify(v)}\``;
}

/**
 * Rows for every key of an object schema. `defaults` is the schema's output for a minimal input
 * (the keys it fills in are its defaults); a key it leaves unset has no default.
 */
export function schemaRows(schema: z.ZodType, defaults: unknown, prefix: string[] = []): Row[] {
  const root = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Node;
  const rows: Row[] = [];
  const walk = (n: Node, path: string[]) => {
    const unit = n.unit;
    if (path.length > 0) {
      const row: Row = {
        path: path.join('.').replace(/\.\[\]/g, '[]'),
        type: typeOf(n),
        description: n.description ?? '',
      };
      // An object's default is the sum of its keys' defaults, shown on their own rows.
      const d = n.properties ? undefined : showDefault(at(defaults, path.slice(prefix.length)), unit);
      if (d !== undefined) row.default = d;
      rows.push(row);
    }
    if (n.properties) for (const [k, child] of Object.entries(n.properties)) walk(child, [...path, k]);
    // A map (a record, or an object's catch-all): one row for any of its keys.
    if (typeof n.additionalProperties === 'object') {
      const child = n.additionalProperties;
      const key = n.propertyNames?.title ?? child.keyName ?? 'name';
      walk({ description: `For one ${key}.`, ...child }, [...path, `<${key}>`]);
    }
    if (n.type === 'array' && n.items?.properties) {
      for (const [k, child] of Object.entries(n.items.properties)) walk(child, [...path, `[]`, k]);
    }
  };
  walk(root, prefix);
  return rows;
}

/** A Markdown table, cells escaped for pipes and line breaks. */
export function table(head: string[], rows: string[][]): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n+/g, ' ');
  const lines = [`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`];
  for (const r of rows) lines.push(`| ${r.map(cell).join(' | ')} |`);
  return lines.join('\n');
}
