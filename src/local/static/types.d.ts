/**
 * The shapes the page works with: what GET /local/state answers (src/local/workspace/view.ts
 * builds it) and the Block Kit the app sends through it. Only what the page reads is named;
 * the checks are the page's own (this file is for `tsc -p src/local/static` only, never served).
 */

export interface TextObject {
  type: string;
  text: string;
  emoji?: boolean;
}

export interface Option {
  text: TextObject;
  value: string;
}

export interface Confirm {
  title?: TextObject;
  text?: TextObject;
  confirm?: TextObject;
  deny?: TextObject;
  style?: string;
}

/** An element of a section, actions, context or input block (buttons, selects, inputs, images, text). */
export interface BlockElement {
  type: string;
  action_id?: string;
  text?: TextObject;
  value?: string;
  url?: string;
  style?: string;
  confirm?: Confirm;
  image_url?: string;
  alt_text?: string;
  options?: Option[];
  option_groups?: Array<{ options: Option[] }>;
  placeholder?: TextObject;
  initial_option?: Option;
  initial_value?: string;
  multiline?: boolean;
  /** file_input: the extensions it takes (csv, txt). */
  filetypes?: string[];
  max_length?: number;
  /** When an input block with dispatch_action sends its block action (Slack's default: Enter only). */
  dispatch_action_config?: { trigger_actions_on?: string[] };
}

export interface RichTextElement {
  type: string;
  text?: string;
  url?: string;
  user_id?: string;
  elements?: RichTextElement[];
}

export interface Block {
  type: string;
  block_id?: string;
  text?: TextObject;
  fields?: TextObject[];
  accessory?: BlockElement;
  /** Block elements, or rich text elements in a rich_text block. */
  elements?: BlockElement[];
  slack_file?: { id?: string };
  image_url?: string;
  alt_text?: string;
  title?: TextObject;
  /** An input block's control. */
  element?: BlockElement;
  label?: TextObject;
  optional?: boolean;
  hint?: TextObject;
  /** An input block whose control sends block actions as it changes. */
  dispatch_action?: boolean;
}

export interface FileView {
  id: string;
  name: string;
  title: string;
  image: boolean;
  size: number;
}

export interface Attachment {
  blocks?: Block[];
  text?: string;
  fallback?: string;
}

/** A channel message (with its replies) or an ephemeral. */
export interface MessageView {
  ts: string;
  text?: string;
  blocks?: Block[];
  attachments?: Attachment[];
  edited?: boolean;
  files?: FileView[];
  replies?: MessageView[];
}

export interface ChannelView {
  id: string;
  name: string;
  kind: 'channel' | 'dm';
  messages: MessageView[];
  ephemerals: MessageView[];
}

export interface ModalView {
  id: string;
  hash?: string;
  title?: TextObject;
  close?: TextObject;
  submit?: TextObject;
  blocks?: Block[];
  /** Field errors by block id; `_` is for the whole modal. */
  errors: Record<string, string>;
}

export interface Person {
  id: string;
  name: string;
  handle: string;
  roles: string[];
}

/** What one person sees: GET /local/state?user=… */
export interface PageState {
  me: string;
  people: Person[];
  channels: ChannelView[];
  home: { blocks?: Block[] } | null;
  modals: ModalView[];
  sandbox: boolean;
  commands: string[];
  /** The workspace's domain: its permalinks (https://<domain>.slack.com/archives/…) open on the page. */
  teamDomain: string;
}

/** Where an action happens (it says which request to send). */
export interface ActionContext {
  source: 'message' | 'ephemeral' | 'view' | 'home';
  channel?: string;
  ts?: string;
  viewId?: string;
  errors?: Record<string, string>;
}

/** An action as POST /local/action takes it. */
export interface ClickedAction {
  action_id?: string;
  block_id: string;
  type: string;
  value?: string;
  text?: string;
  selected_option?: Option;
}

/** One input's value, as Slack puts it in view.state.values. */
export interface FieldValue {
  type?: string;
  value?: string | null;
  selected_option?: { text: { type: string; text: string | null; emoji: boolean }; value: string } | null;
  /** file_input: the files chosen, by the id the workspace's Slack gave them. */
  files?: Array<{ id: string }>;
}

/** view.state.values: block id → action id → value. */
export type FormValues = Record<string, Record<string, FieldValue>>;

/** GET /local/emoji.json: Slack's short names (emoji-datasource) → unified code points, and the toned ones. */
export interface EmojiTable {
  names: Record<string, string>;
  skinTones: string[];
}

/** How the page shows `<!date^…>` tokens: the reader's zone and locale, against "now". */
export interface DateContext {
  now: number;
  timeZone?: string;
  locale?: string;
}

/** A piece of a line of mrkdwn, parsed (mrkdwn-parse.js) before it becomes DOM nodes (mrkdwn.js). */
export type MrkdwnInline =
  | { type: 'text'; text: string }
  | { type: 'bold' | 'italic' | 'strike'; children: MrkdwnInline[] }
  | { type: 'code'; children: MrkdwnInline[] }
  | { type: 'link'; url: string; label: MrkdwnInline[] | null }
  | { type: 'user' | 'channel' | 'group'; id: string; label: string | null }
  | { type: 'broadcast'; name: string }
  | { type: 'date'; text: string; url: string | null }
  | { type: 'emoji'; name: string; chars: string };

/** A block of mrkdwn: plain lines, a quote, a bulleted list, or preformatted text. */
export type MrkdwnBlock =
  | { type: 'lines' | 'quote'; lines: MrkdwnInline[][] }
  | { type: 'list'; items: MrkdwnInline[][] }
  | { type: 'pre'; children: MrkdwnInline[] };

/** The emoji table ready for look-ups (mrkdwn-parse.js `emojiLookup`). */
export interface EmojiLookup {
  names: Record<string, string>;
  toned: ReadonlySet<string>;
}

/** What parsing mrkdwn needs besides the text: the emoji known, and how to show dates. */
export interface MrkdwnContext {
  emoji: EmojiLookup;
  date: DateContext;
}
