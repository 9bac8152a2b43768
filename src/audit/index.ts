export * from './log.js';
export * from './actions.js';
