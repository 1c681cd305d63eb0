/** Types of demo/build.mjs for the tests. */
export function fingerprint(): string;
export function stamp(value?: string): void;
export function inputs(dir?: string): string[];
