/** An answer as tests read it: status, headers and the JSON body. */
export interface JsonAnswer {
  status: number;
  headers: Headers;
  // The JSON of many routes, asserted on field by field; a static type would add nothing there.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: Record<string, any>;
}

/** JSON GET and POST against a platform whose base URL (`…/api/v1`) is known once it has started. */
export function jsonHttp(baseUrl: () => string) {
  const read = async (res: Response): Promise<JsonAnswer> => ({ status: res.status, headers: res.headers, body: (await res.json()) as JsonAnswer['body'] });
  return {
    post: async (pathname: string, headers: Record<string, string>, body?: unknown): Promise<JsonAnswer> =>
      read(
        await fetch(`${baseUrl()}${pathname}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify(body ?? {}),
        }),
      ),
    get: async (pathname: string, headers: Record<string, string>): Promise<JsonAnswer> => read(await fetch(`${baseUrl()}${pathname}`, { headers })),
  };
}
