/**
 * The local workspace lives in ./workspace/ (index.ts says which part does what); this path
 * keeps its public exports.
 */
export * from './workspace/index.js';
