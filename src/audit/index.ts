export * from './log.js';
export * from './actions.js';
export * from './verify.js';
