// madge ships no types; the little of its API the shape test uses.
declare module 'madge' {
  interface MadgeResult {
    circular(): string[][];
  }
  export default function madge(paths: string | string[], config?: Record<string, unknown>): Promise<MadgeResult>;
}
