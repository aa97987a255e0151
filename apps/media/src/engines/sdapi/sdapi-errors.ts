import { DomainError, ErrorCode } from '@svc/errors';
import { upstreamImageError } from '../upstream/openai-image.engine';

/**
 * An sdapi failure as a DomainError, mapped like the OpenAI-compatible image engine's: 400/422 →
 * 400 with the server's message (URLs, IP addresses and the server's own host removed), 429 →
 * 429, 408/504 → 504, 503 → 503, anything else (401 bad credentials, 404 unknown checkpoint,
 * 500) → 502 without the server's text.
 *
 * The web UI answers FastAPI shapes: `{detail: "..."}` from HTTPException, `{detail: [{loc, msg}]}`
 * from request validation, and `{error, detail, body, errors}` from its exception middleware.
 */
export function sdapiError(status: number, body: string, serverHost?: string): DomainError {
  if (status !== 400 && status !== 422) return upstreamImageError(status, '');
  const message = scrub(messageOf(body), serverHost);
  return new DomainError(ErrorCode.Validation, `The image server rejected the request: ${message || 'no details'}`);
}

function messageOf(body: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return '';
  }
  if (!parsed || typeof parsed !== 'object') return '';
  const { detail, errors } = parsed as { detail?: unknown; errors?: unknown };
  if (typeof detail === 'string' && detail) return detail;
  if (Array.isArray(detail)) {
    return detail
      .map((d: { loc?: unknown[]; msg?: unknown }) => {
        const field = Array.isArray(d?.loc) ? d.loc.filter((p) => p !== 'body').join('.') : '';
        const msg = typeof d?.msg === 'string' ? d.msg : '';
        return field ? `${field}: ${msg}` : msg;
      })
      .filter(Boolean)
      .join('; ');
  }
  return typeof errors === 'string' ? errors : '';
}

/** Removes what could locate the server: URLs, IPv4 addresses (with ports) and its host name. */
export function scrub(message: string, serverHost?: string): string {
  let out = message.replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, '[url]').replace(/\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b/g, '[address]');
  if (serverHost) out = out.split(serverHost).join('[server]');
  return out.slice(0, 300);
}
