// The ids now live beside the local workspace's Web API (one implementation for tests and people).
export * from '../../src/local/slack-ids.js';
