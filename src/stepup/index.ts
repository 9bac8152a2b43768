export { needsStepUp, proofMeets, stepUpAbove, stepUpNeed, type StepUpNeed, type StepUpProof } from './threshold.js';
export { createStepUpService, type StepUpOutcome, type StepUpService, type StepUpStatus } from './service.js';
export { previousSecretsKey, resolveSecretsKey, parseSecretsKey, STEPUP_SETTINGS } from './key.js';
export { ENROLMENTS, NOTICES, LOCK_MS, MAX_WRONG_CODES, type Enrolment, type StepUpNotice } from './types.js';
export { codeAt, groupedSecret, matchedStep, otpauthUri, timeStep } from './totp.js';
export { lockedWords, triesLeft, wrongCodeWords } from './words.js';
