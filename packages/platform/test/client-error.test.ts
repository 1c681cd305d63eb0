import { connect } from 'node:net';
import { expect, it } from 'vitest';
import { startPlatform } from './harness';

/** Sends raw bytes and reads the whole answer. */
const raw = (url: string, bytes: string) =>
  new Promise<string>((resolve, reject) => {
    const { hostname, port } = new URL(url);
    const socket = connect(Number(port), hostname, () => socket.end(bytes));
    let out = '';
    socket.on('data', (d: Buffer) => (out += String(d)));
    socket.on('end', () => resolve(out));
    socket.on('error', reject);
  });

it('answers a request Node cannot parse with a JSON 400 (it was an empty 400), on both hosts', async () => {
  const t = await startPlatform();
  try {
    for (const url of [t.baseUrl, t.formsUrl]) {
      const answer = await raw(url, 'GET /contacts/v1/contacts HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n');
      expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(answer).toContain('Content-Type: application/json');
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({
        status: 'error',
        message: 'the request is not valid HTTP',
      });
    }
    const huge = await raw(t.baseUrl, `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(huge).toMatch(/^HTTP\/1\.1 431 /);
    expect(JSON.parse(huge.slice(huge.indexOf('\r\n\r\n') + 4)).message).toBe('request headers are too large');
  } finally {
    await t.close();
  }
});
