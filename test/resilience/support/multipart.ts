/** One part of a multipart/form-data body: a field, or a file when `filename` is set. */
export interface FormPart {
  name: string;
  value: Buffer | string;
  filename?: string;
  contentType?: string;
}

export const BOUNDARY = 'svcResilienceBoundary7MA4YWxk';

/** A well-formed multipart/form-data body with `boundary`. */
export function formBody(parts: FormPart[], boundary = BOUNDARY): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename !== undefined ? `; filename="${part.filename}"` : ''}`;
    const type = part.contentType ?? (part.filename !== undefined ? 'application/octet-stream' : undefined);
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type ? `Content-Type: ${type}\r\n` : ''}\r\n`, 'latin1'));
    chunks.push(Buffer.isBuffer(part.value) ? part.value : Buffer.from(part.value));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

export const formContentType = (boundary = BOUNDARY) => `multipart/form-data; boundary=${boundary}`;
