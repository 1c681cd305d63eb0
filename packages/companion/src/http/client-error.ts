/** Requests Node's HTTP parser refuses (a malformed request line, a header too large, a bad
 * chunk) never reach Express; by default Node answers them with an empty 400. The standalone
 * companion answers with its JSON error body instead, then closes the connection. (Mounted in a
 * host app, the host's server decides: `server.on('clientError', answerClientError)`.) */
import type { Socket } from 'node:net';

export function answerClientError(err: NodeJS.ErrnoException, socket: Socket) {
  if (!socket.writable || err.code == 'ECONNRESET') return socket.destroy();
  const tooLarge = err.code == 'HPE_HEADER_OVERFLOW';
  const body = JSON.stringify({
    status: 'error',
    message: tooLarge ? 'request headers are too large' : 'the request is not valid HTTP',
  });
  socket.end(
    `HTTP/1.1 ${tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request'}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
