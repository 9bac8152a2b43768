/**
 * Everything the fake remembers, in one object every part reads at call time: `reset`
 * replaces the per-test collections, so nothing may keep a collection of its own.
 */
import type {
  ApiGate,
  FailureSpec,
  FakeEphemeral,
  FakeFile,
  FakeMessage,
  FakeSlackOptions,
  FakeView,
  Json,
  RecordedCall,
  ResponseMessage,
  ResponsePost,
  ResponseUrlOptions,
  SlackUser,
  SocketUrlSource,
} from './types.js';

/** A Web API method: its arguments and token in, the fields beside `ok: true` out (or throws ApiError). */
export type Handler = (args: Json, token: string) => Json;

export interface ResponseUrlState {
  id: string;
  url: string;
  opts: ResponseUrlOptions;
  uses: number;
  messages: ResponseMessage[];
  /** A ts per message (parallel to `messages`), so a person sees them in time order with the rest. */
  stamps: string[];
}

export interface PendingUpload {
  id: string;
  filename: string;
  declaredLength: number;
  alt_text?: string;
  snippet_type?: string;
  content?: Buffer;
  completed?: FakeFile;
  /** Uploaded by a person (a modal's file_input), not by the app. */
  user?: string;
}

export interface ChannelStore {
  messages: FakeMessage[];
}

export interface SlackState {
  readonly opts: FakeSlackOptions;
  /** `http://127.0.0.1:<port>`, set once the server listens. */
  origin: string;
  socket: SocketUrlSource | undefined;
  gate: ApiGate | undefined;
  // Forgotten by reset():
  calls: RecordedCall[];
  failures: Map<string, Array<FailureSpec & { left: number }>>;
  channelStores: Map<string, ChannelStore>;
  ephemerals: FakeEphemeral[];
  uploads: Map<string, PendingUpload>;
  views: Map<string, FakeView>;
  homeTabs: Map<string, FakeView>;
  viewOwners: Map<string, string>;
  responseUrls: Map<string, ResponseUrlState>;
  responses: ResponsePost[];
  // Kept across reset():
  readonly users: Map<string, Partial<SlackUser>>;
  readonly usergroups: Map<string, string[]>;
  readonly dms: Map<string, string>;
  readonly timers: Set<NodeJS.Timeout>;
  readonly listeners: Set<() => void>;
  readonly triggerOwners: Map<string, string>;
}

export function createState(opts: FakeSlackOptions): SlackState {
  return {
    opts,
    origin: '',
    socket: opts.socket,
    gate: opts.gate,
    calls: [],
    failures: new Map(),
    channelStores: new Map(),
    ephemerals: [],
    uploads: new Map(),
    views: new Map(),
    homeTabs: new Map(),
    viewOwners: new Map(),
    responseUrls: new Map(),
    responses: [],
    users: new Map(Object.entries(opts.users ?? {})),
    usergroups: new Map(Object.entries(opts.usergroups ?? {})),
    dms: new Map(),
    timers: new Set(),
    listeners: new Set(),
    triggerOwners: new Map(),
  };
}

/** Forget every call, message, file, view, response and pending failure; keeps users, groups and socket. */
export function resetState(s: SlackState): void {
  s.calls = [];
  s.failures = new Map();
  s.channelStores = new Map();
  s.ephemerals = [];
  s.uploads = new Map();
  s.views = new Map();
  s.homeTabs = new Map();
  s.viewOwners = new Map();
  s.responseUrls = new Map();
  s.responses = [];
}

/** Tell the onChange listeners that something a person could see may have changed. */
export function changed(s: SlackState): void {
  for (const l of s.listeners) {
    try {
      l();
    } catch {
      // A listener's failure is its own business; the API keeps answering.
    }
  }
}
