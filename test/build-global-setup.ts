/**
 * Vitest global setup: the run's one build of the repository's TypeScript for child processes
 * (test/helpers/built.ts says why), made before the first file and removed after the last.
 */
import type { TestProject } from 'vitest/node';
import { buildForChildren, removeBuild } from './helpers/built.js';

export default async function setup(project: TestProject): Promise<() => void> {
  const out = await buildForChildren();
  project.provide('builtRoot', out);
  return () => removeBuild(out);
}
