/** Requests Node's HTTP parser refuses (a malformed request line, a header too large, a bad
 * chunk) never reach Express; by default Node answers them with an empty 400. This answers with
 * the platform's JSON error body instead, then closes the connection. */
import type { Socket } from 'node:net';
import { errorBody } from './errors';

export function answerClientError(err: NodeJS.ErrnoException, socket: Socket) {
  if (!socket.writable || (err as { code?: string }).code == 'ECONNRESET') return socket.destroy();
  const tooLarge = err.code == 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? 431 : 400;
  const body = JSON.stringify(
    errorBody(tooLarge ? 'request headers are too large' : 'the request is not valid HTTP', {
      category: 'VALIDATION_ERROR',
    }),
  );
  socket.end(
    `HTTP/1.1 ${status} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
