import { UpstreamErrors } from './upstream-errors';

/**
 * `fetch()` of an upstream server, answered as text; every failure is mapped by `errors`: no
 * answer or a timeout (pass `AbortSignal.timeout()` in `init`), a body that breaks off, and a
 * status >= 400 (with its `retry-after`).
 */
export async function fetchUpstreamText(errors: UpstreamErrors, url: string, init: RequestInit): Promise<string> {
  let res: Response;
  try {
    res = await fetch(url, init);
  } catch (err) {
    throw errors.transport(err);
  }
  let text: string;
  try {
    text = await res.text();
  } catch (err) {
    throw errors.transport(err, 'response');
  }
  if (!res.ok) throw errors.http(res.status, text, res.headers.get('retry-after'));
  return text;
}
