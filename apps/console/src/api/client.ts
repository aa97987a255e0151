/** Calls to the public API (/api/v1), same origin. Errors carry the API's own message. */
export const API_BASE = '/api/v1';

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface CallOptions {
  key: string;
  method?: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** A JSON body, or a FormData for uploads. */
  body?: unknown;
  query?: Record<string, string | number | undefined>;
  accept?: string;
  signal?: AbortSignal;
}

export function urlOf(path: string, query?: CallOptions['query']): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined && value !== '') params.set(name, String(value));
  const qs = params.toString();
  return `${API_BASE}${path}${qs ? `?${qs}` : ''}`;
}

/** The raw response of a successful call (for streams, binaries and headers); an ApiError otherwise. */
export async function call(path: string, options: CallOptions): Promise<Response> {
  const headers: Record<string, string> = options.key ? { authorization: `Bearer ${options.key}` } : {};
  if (options.accept) headers.accept = options.accept;
  let body: BodyInit | undefined;
  if (options.body instanceof FormData) body = options.body;
  else if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  let response: Response;
  try {
    response = await fetch(urlOf(path, options.query), { method: options.method ?? 'GET', headers, body, signal: options.signal });
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    throw new ApiError('The server could not be reached. Check your connection and try again.', 0);
  }
  if (!response.ok) throw new ApiError(await errorMessage(response), response.status);
  return response;
}

/** A JSON call: the parsed body and the response headers. */
export async function callJson<T>(path: string, options: CallOptions): Promise<{ data: T; headers: Headers }> {
  const response = await call(path, options);
  return { data: (await response.json()) as T, headers: response.headers };
}

/** The API's message: `{error: "..."}` (our shape) or `{error: {message}}` (OpenAI-compatible routes). */
export async function errorMessage(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { error?: unknown };
    if (typeof body.error === 'string') return body.error;
    if (body.error && typeof body.error === 'object' && typeof (body.error as { message?: unknown }).message === 'string') {
      return (body.error as { message: string }).message;
    }
  } catch {
    // Not JSON: fall through to the status line.
  }
  return `${response.status} ${response.statusText || 'error'}`.trim();
}
