/**
 * Test-side check that a recorded Slack call is within Slack's limits: written from the
 * Block Kit reference independently of src/slack/limits.ts (a bug there must not hide here).
 */
import type { RecordedCall } from '../helpers/fake-slack.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const len = (t: unknown): number =>
  isObj(t) && typeof t.text === 'string' ? t.text.length : typeof t === 'string' ? t.length : 0;

function checkElement(e: unknown, where: string, out: string[]): void {
  if (!isObj(e)) return;
  if (typeof e.action_id === 'string' && e.action_id.length > 255) out.push(`${where}: action_id > 255`);
  if (e.type === 'button') {
    if (len(e.text) > 75) out.push(`${where}: button text > 75`);
    if (typeof e.value === 'string' && e.value.length > 2000) out.push(`${where}: button value > 2000`);
  }
  if (e.placeholder && len(e.placeholder) > 150) out.push(`${where}: placeholder > 150`);
  if (Array.isArray(e.options)) {
    if (e.options.length > 100) out.push(`${where}: > 100 options`);
    for (const o of e.options) {
      if (isObj(o) && len(o.text) > 75) out.push(`${where}: option text > 75`);
      if (isObj(o) && typeof o.value === 'string' && o.value.length > 150) out.push(`${where}: option value > 150`);
    }
  }
}

export function blockViolations(blocks: unknown, maxBlocks: number, where: string): string[] {
  const out: string[] = [];
  if (!Array.isArray(blocks)) return out;
  if (blocks.length > maxBlocks) out.push(`${where}: ${blocks.length} blocks > ${maxBlocks}`);
  blocks.forEach((b, i) => {
    if (!isObj(b)) return;
    const w = `${where} block ${i} (${String(b.type)})`;
    if (typeof b.block_id === 'string' && b.block_id.length > 255) out.push(`${w}: block_id > 255`);
    if (b.type === 'section') {
      if (len(b.text) > 3000) out.push(`${w}: text ${len(b.text)} > 3000`);
      if (Array.isArray(b.fields)) {
        if (b.fields.length > 10) out.push(`${w}: > 10 fields`);
        for (const f of b.fields) if (len(f) > 2000) out.push(`${w}: field > 2000`);
      }
      checkElement(b.accessory, w, out);
    } else if (b.type === 'header' && len(b.text) > 150) out.push(`${w}: header > 150`);
    else if (b.type === 'context' && Array.isArray(b.elements) && b.elements.length > 10)
      out.push(`${w}: > 10 elements`);
    else if (b.type === 'actions' && Array.isArray(b.elements)) {
      for (const e of b.elements) checkElement(e, w, out);
    } else if (b.type === 'input') {
      if (len(b.label) > 2000) out.push(`${w}: label > 2000`);
      checkElement(b.element, w, out);
    }
  });
  return out;
}

export function messageViolations(msg: Obj, where: string): string[] {
  const out: string[] = [];
  if (typeof msg.text === 'string' && msg.text.length > 40_000) out.push(`${where}: text ${msg.text.length} > 40000`);
  out.push(...blockViolations(msg.blocks, 50, where));
  return out;
}

export function viewViolations(view: unknown, where: string): string[] {
  if (!isObj(view)) return [];
  const out: string[] = [];
  if (len(view.title) > 24) out.push(`${where}: title > 24`);
  if (view.submit && len(view.submit) > 24) out.push(`${where}: submit > 24`);
  if (view.close && len(view.close) > 24) out.push(`${where}: close > 24`);
  if (typeof view.private_metadata === 'string' && view.private_metadata.length > 3000)
    out.push(`${where}: private_metadata > 3000`);
  out.push(...blockViolations(view.blocks, 100, where));
  return out;
}

/** Every limit any of these calls breaks (empty when all are within Slack's limits). */
export function limitViolations(calls: RecordedCall[], responses: Array<{ body: Obj }> = []): string[] {
  const out: string[] = [];
  for (const c of calls) {
    if (/^chat\./.test(c.method)) out.push(...messageViolations(c.args, c.method));
    if (/^views\./.test(c.method)) out.push(...viewViolations(c.args.view, c.method));
  }
  for (const r of responses) out.push(...messageViolations(r.body, 'response_url'));
  return out;
}
