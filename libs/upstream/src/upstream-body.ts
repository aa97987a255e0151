/** What an upstream error body says, in whichever shape the server speaks. */
export interface UpstreamErrorBody {
  message?: string;
  /** OpenAI's `error.code` (or a top-level `code`), e.g. `context_length_exceeded`. */
  code?: string;
}

/**
 * Reads the shapes model servers answer errors in, first match wins:
 * OpenAI `{error: {message, code}}`; FastAPI `{detail: "..."}` and `{detail: [{loc, msg}]}`
 * (vLLM, Kokoro-FastAPI, the AUTOMATIC1111 web UI); the web UI's exception middleware
 * `{error: "<class>", errors: "..."}`; `{error: "..."}` (llama.cpp, Ollama); `{message}`.
 * A body that is not JSON says nothing: HTML error pages and stack traces are not passed on.
 */
export function readUpstreamErrorBody(body: string): UpstreamErrorBody {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return {};
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
  const { error, detail, errors, message, code } = parsed as Record<string, unknown>;
  const nested = error && typeof error === 'object' ? (error as Record<string, unknown>) : undefined;
  const found = { code: text(nested?.code) ?? text(code) };
  const said = text(nested?.message) ?? text(detail) ?? fastApiIssues(detail) ?? text(errors) ?? text(error) ?? text(message);
  return said === undefined ? found : { ...found, message: said };
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() ? value.trim() : undefined;
}

/** FastAPI's request validation: `[{loc: ['body', 'width'], msg}]` as `width: msg; ...`. */
function fastApiIssues(detail: unknown): string | undefined {
  if (!Array.isArray(detail)) return undefined;
  const parts = detail
    .map((d: { loc?: unknown; msg?: unknown }) => {
      const field = Array.isArray(d?.loc) ? d.loc.filter((p) => p !== 'body').join('.') : '';
      const msg = typeof d?.msg === 'string' ? d.msg : '';
      return field && msg ? `${field}: ${msg}` : msg;
    })
    .filter(Boolean);
  return parts.length ? parts.join('; ') : undefined;
}
