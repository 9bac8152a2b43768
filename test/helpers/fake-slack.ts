/**
 * The recording fake Slack Web API of the tests is the local workspace's Web API
 * (src/local/slack-api.ts): one implementation, so what the tests check is what a person sees.
 */
export * from '../../src/local/slack-api.js';
