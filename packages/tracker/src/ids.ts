/** 32 lower-case hex characters (128 random bits): the `svcutk` format and event ids. */
export const newId = (): string =>
  Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => (b | 256).toString(16).slice(1)).join('');

export const isId = (s: string | undefined): s is string => /^[0-9a-f]{32}$/.test(s!);
