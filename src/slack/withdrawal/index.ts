/** How a withdrawal request looks in Slack: its card, thread lines, DMs and their shared words. */
export * from './card.js';
export * from './dm.js';
export * from './thread.js';
export * from './words.js';
