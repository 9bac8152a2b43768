// madge ships no types; the little of its API the shape test uses.
declare module 'madge' {
  interface MadgeResult {
    circular(): string[][];
    /** Each file and the files it imports. */
    obj(): Record<string, string[]>;
  }
  export default function madge(paths: string | string[], config?: Record<string, unknown>): Promise<MadgeResult>;
}
