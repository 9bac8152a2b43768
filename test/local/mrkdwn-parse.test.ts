/**
 * The page's mrkdwn reader (src/local/static/mrkdwn-parse.js), pure, with the emoji table the
 * server makes from emoji-datasource (src/local/workspace/emoji.ts). The browser test
 * (test/browser/rendering.test.ts) shows the same through the page.
 */
import { describe, expect, it } from 'vitest';
import { emojiTable, installedEmojiTable } from '../../src/local/workspace/emoji.js';
import {
  emojiChars,
  emojiLookup,
  formatSlackDate,
  parseMrkdwn,
  type MrkdwnBlock,
  type MrkdwnContext,
  type MrkdwnInline,
} from '../../src/local/static/mrkdwn-parse.js';

const emoji = emojiLookup(installedEmojiTable());
// 2026-11-23 14:05:09 UTC, a Monday.
const AT = Date.UTC(2026, 10, 23, 14, 5, 9) / 1000;
const ctx: MrkdwnContext = { emoji, date: { now: AT * 1000, timeZone: 'UTC', locale: 'en-US' } };

/** A line's pieces as compact text: formatting as tags, the rest as it reads. */
function show(nodes: MrkdwnInline[]): string {
  return nodes
    .map((n) => {
      switch (n.type) {
        case 'text':
          return n.text;
        case 'bold':
        case 'italic':
        case 'strike':
        case 'code':
          return `<${n.type}>${show(n.children)}</${n.type}>`;
        case 'link':
          return `<link ${n.url}>${n.label ? show(n.label) : ''}</link>`;
        case 'user':
        case 'channel':
        case 'group':
          return `<${n.type} ${n.id}${n.label ? ` ${n.label}` : ''}>`;
        case 'broadcast':
          return `<@${n.name}>`;
        case 'date':
          return `<date${n.url ? ` ${n.url}` : ''}>${n.text}</date>`;
        default:
          return n.chars;
      }
    })
    .join('');
}
const blocks = (text: string) =>
  parseMrkdwn(text, ctx).map((b: MrkdwnBlock) =>
    b.type === 'pre'
      ? { pre: show(b.children) }
      : b.type === 'list'
        ? { list: b.items.map(show) }
        : { [b.type]: b.lines.map(show) },
  );
const line = (text: string) => {
  const b = parseMrkdwn(text, ctx);
  expect(b).toHaveLength(1);
  const first = b[0]!;
  if (first.type !== 'lines') throw new Error(`not one line: ${first.type}`);
  return show(first.lines[0]!);
};

describe('emoji short codes from emoji-datasource', () => {
  it('knows every short name and alias of the table Slack uses, and which take a skin tone', () => {
    const t = installedEmojiTable();
    expect(Object.keys(t.names).length).toBeGreaterThan(1800);
    expect(t.names.octagonal_sign).toBe('1F6D1');
    expect(t.names['+1']).toBe('1F44D');
    expect(t.names.thumbsup).toBe('1F44D');
    expect(t.skinTones).toContain('thumbsup');
    expect(t.skinTones).not.toContain('warning');
  });

  it('leaves out entries of an unknown shape instead of failing, and never answers from the prototype', () => {
    const t = emojiTable([
      { unified: '1F600', short_names: ['grinning'] },
      { unified: 'not hex', short_names: ['bad'] },
      { short_names: ['nothing'] },
      null,
    ]);
    expect(t).toEqual({ names: { grinning: '1F600' }, skinTones: [] });
    expect(emojiTable({ not: 'a list' })).toEqual({ names: {}, skinTones: [] });
    expect(emojiChars(emojiLookup(t), 'constructor')).toBeUndefined();
  });

  it('renders known codes, aliases and skin tones; unknown codes stay text', () => {
    expect(line(':octagonal_sign: Frozen :iphone:')).toBe('🛑 Frozen 📱');
    expect(line(':warning: :+1: :thumbsup:')).toBe('⚠️ 👍 👍');
    expect(line(':+1::skin-tone-3:')).toBe('👍\u{1F3FC}');
    // A tone replaces the presentation selector; a code that takes none keeps the tone swatch.
    expect(line(':point_up::skin-tone-2:')).toBe('☝🏻');
    expect(line(':warning::skin-tone-2:')).toBe('⚠️🏻');
    // In a sequence the tone follows the first code point, as emoji-datasource lists it.
    expect(line(':woman-running::skin-tone-6:')).toBe('\u{1F3C3}\u{1F3FF}\u200D\u2640\uFE0F');
    expect(line(':dm: :not_an_emoji: :constructor:')).toBe(':dm: :not_an_emoji: :constructor:');
    // A time is not a code, and a miss does not swallow the code after it.
    expect(line('at 10:00:warning: 01:21:05')).toBe('at 10:00⚠️ 01:21:05');
  });
});

describe('mrkdwn as Slack reads it', () => {
  it('formats bold, italics, strike and code at word edges only', () => {
    expect(line('*bold* _it_ ~gone~ `code`')).toBe(
      '<bold>bold</bold> <italic>it</italic> <strike>gone</strike> <code>code</code>',
    );
    expect(line('snake_case_name 2*3*4 a~b~c')).toBe('snake_case_name 2*3*4 a~b~c');
    expect(line('* not bold * _ not it _')).toBe('* not bold * _ not it _');
    expect(line('(*bold*), *_both_*')).toBe('(<bold>bold</bold>), <bold><italic>both</italic></bold>');
    // Code is verbatim: no formatting, no emoji.
    expect(line('`*x* :warning:`')).toBe('<code>*x* :warning:</code>');
  });

  it('decodes the three escapes once, and only there', () => {
    expect(line('a &lt;b&gt; &amp;lt; &amp; `&lt;x&gt;`')).toBe('a <b> &lt; & <code><x></code>');
  });

  it('reads links, mentions, broadcasts and groups', () => {
    expect(line('<https://example.com/a?b=1&amp;c=2|the *page*> <https://x.test>')).toBe(
      '<link https://example.com/a?b=1&c=2>the <bold>page</bold></link> <link https://x.test></link>',
    );
    expect(line('<mailto:a@b.test|mail> <javascript:alert(1)|bad> <data:text/html,x>')).toBe(
      '<link mailto:a@b.test>mail</link> bad data:text/html,x',
    );
    expect(line('<@U0ALICE> <#C0APPROVALS> <#C0X|ops> <!here> <!subteam^S0OPS|@ops>')).toBe(
      '<user U0ALICE> <channel C0APPROVALS> <channel C0X ops> <@here> <group S0OPS @ops>',
    );
    expect(line('*<@U0CAROL> approved*')).toBe('<bold><user U0CAROL> approved</bold>');
  });

  it('shows dates in the reader’s zone with Slack’s tokens, and the fallback when it cannot', () => {
    const d = (format: string, tz = 'UTC') => formatSlackDate(AT, format, { ...ctx.date, timeZone: tz });
    expect(d('{date_num} {time_secs}')).toMatch(/^2026-11-23 2:05:09\sPM$/);
    expect(d('{date}')).toBe('November 23rd, 2026');
    expect(d('{date_short}')).toBe('Nov 23, 2026');
    expect(d('{date_long}')).toBe('Monday, November 23rd, 2026');
    expect(d('{date_short_pretty} {time}')).toBe('today 2:05 PM');
    // Four hours before, it is still the 23rd in UTC but already late that evening in Auckland.
    const earlier = { now: (AT - 4 * 3600) * 1000 };
    expect(formatSlackDate(AT, '{date_pretty} {time}', { ...earlier, timeZone: 'UTC', locale: 'en-GB' })).toBe(
      'today 14:05',
    );
    expect(formatSlackDate(AT, '{date_pretty} {time}', { ...earlier, timeZone: 'Pacific/Auckland' })).toMatch(
      /^tomorrow 3:05\sAM$/,
    );
    expect(formatSlackDate(AT - 3 * 3600, '{ago}', ctx.date)).toBe('3 hours ago');
    expect(formatSlackDate(AT - 86_400 * 3, '{date_pretty}', ctx.date)).toBe('November 20th, 2026');
    expect(d('{nonsense}')).toBe('{nonsense}');
    expect(formatSlackDate(Number.NaN, '{date}', ctx.date)).toBeUndefined();
    expect(line(`due <!date^${AT}^{date_short} {time}|2026-11-23 14:05 UTC>`)).toBe(
      'due <date>Nov 23, 2026 2:05 PM</date>',
    );
    expect(line(`<!date^${AT}^{date_num}^https://x.test/a|fb>`)).toBe('<date https://x.test/a>2026-11-23</date>');
    expect(line('<!date^nope^{date}|2026-11-23 14:05 UTC>')).toBe('<date>2026-11-23 14:05 UTC</date>');
  });

  it('groups lines into quotes, bulleted lists and preformatted blocks', () => {
    expect(blocks('Intro\n&gt; quoted *bold*\n> second\n• one\n- two :warning:\nend')).toEqual([
      { lines: ['Intro'] },
      { quote: ['quoted <bold>bold</bold>', 'second'] },
      { list: ['one', 'two ⚠️'] },
      { lines: ['end'] },
    ]);
    expect(blocks('Before\n```\n*raw* :x: <@U0ALICE>\n  indented\n```\nAfter')).toEqual([
      { lines: ['Before'] },
      { pre: '*raw* :x: <user U0ALICE>\n  indented' },
      { lines: ['After'] },
    ]);
    expect(blocks('a\n&gt;&gt;&gt; all\nof this')).toEqual([{ lines: ['a'] }, { quote: ['all', 'of this'] }]);
    // An unclosed fence stays text.
    expect(blocks('one ``` two')).toEqual([{ lines: ['one ``` two'] }]);
  });
});
