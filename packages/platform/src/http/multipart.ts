/** Multipart uploads (`POST /content/api/v2/files`, `.../files/:file_id`) parsed with busboy into
 * memory: text fields become `req.body` (validated by the catalog like any body), file parts go
 * to `res.locals.files`. Caps: a size per file (413), a number of files and fields; only
 * multipart/form-data is accepted (415); broken multipart is a 400. */
import busboy from 'busboy';
import type { NextFunction, Request, Response } from 'express';
import { PlatformError } from '../domain/errors';
import type { UploadedFile } from '../store/files/files';

export interface UploadLimits {
  /** Bytes per file; default 10 MB. */
  fileBytes: number;
  /** Files per request; default 10. */
  files: number;
}

export const DEFAULT_UPLOAD_LIMITS: UploadLimits = { fileBytes: 10 * 1024 * 1024, files: 10 };

/** The files the middleware read, for the router to hand to the handler. */
export const uploadedFiles = (res: Response) => (res.locals.files ?? []) as UploadedFile[];

export function multipart(limits: UploadLimits = DEFAULT_UPLOAD_LIMITS) {
  return (req: Request, res: Response, next: NextFunction) => {
    const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (type != 'multipart/form-data')
      return next(
        new PlatformError('unsupported-type', 'send the upload as multipart/form-data', {
          category: 'VALIDATION_ERROR',
        }),
      );
    let parser: busboy.Busboy;
    try {
      // Names are kept as sent (preservePath) so that a path is refused, not quietly cut down.
      parser = busboy({
        headers: req.headers,
        preservePath: true,
        limits: { fileSize: limits.fileBytes, files: limits.files, fields: 50, fieldSize: 64 * 1024 },
      });
    } catch {
      return next(new PlatformError('invalid', 'the multipart body has no boundary', { category: 'VALIDATION_ERROR' }));
    }
    const fields: Record<string, string> = {};
    const files: UploadedFile[] = [];
    let failed: PlatformError | undefined;
    let done = false;
    const fail = (err: PlatformError) => {
      failed ??= err;
    };
    const finish = () => {
      if (done) return;
      done = true;
      req.unpipe(parser);
      if (failed) return next(failed);
      req.body = fields;
      res.locals.files = files;
      next();
    };
    parser.on('field', (name, value) => (fields[name] = value));
    parser.on('file', (field, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      // A form that ends inside a file errors on the file's stream (not only on the parser).
      stream.on('error', () =>
        fail(new PlatformError('invalid', 'the multipart body is malformed', { category: 'VALIDATION_ERROR' })),
      );
      stream.on('limit', () =>
        fail(
          new PlatformError('too-large', `files: a file is larger than ${limits.fileBytes} bytes`, {
            category: 'VALIDATION_ERROR',
          }),
        ),
      );
      stream.on('close', () =>
        files.push({ field, filename: info.filename ?? '', mimeType: info.mimeType, bytes: Buffer.concat(chunks) }),
      );
    });
    parser.on('filesLimit', () =>
      fail(
        new PlatformError('too-large', `files: at most ${limits.files} files per upload`, {
          category: 'VALIDATION_ERROR',
        }),
      ),
    );
    parser.on('fieldsLimit', () =>
      fail(new PlatformError('too-large', 'too many form fields', { category: 'VALIDATION_ERROR' })),
    );
    // busboy may not close after an error: answer at the first of the two.
    parser.on(
      'error',
      () => (
        fail(new PlatformError('invalid', 'the multipart body is malformed', { category: 'VALIDATION_ERROR' })),
        finish()
      ),
    );
    parser.on('close', finish);
    req.pipe(parser);
  };
}
