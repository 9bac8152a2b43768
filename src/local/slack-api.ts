/**
 * The Slack Web API stand-in of the local workspace and the tests' recording fake lives in
 * ./slack-api/ (index.ts says which part does what); this path keeps its public exports.
 */
export * from './slack-api/index.js';
