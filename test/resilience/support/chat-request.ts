/** A stream's error event (the gateway's `data: {"error": ...}` line). Generated text may itself say "error". */
const ERROR_EVENT = /^data: \{"error"/m;

/** A small chat completion, streamed or not, judged as a client would: 200 and a complete answer. */
export function chatRequest(apiUrl: string, apiKey: string, stream: boolean, model = 'svc-tiny-random') {
  return async (signal: AbortSignal): Promise<{ status: number; complete: boolean; requestId: string | null; detail?: string }> => {
    const res = await fetch(`${apiUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Say something' }], max_tokens: 6, stream }),
      signal,
    });
    const text = await res.text();
    const complete = res.status === 200 && (stream ? text.includes('data: [DONE]') && !ERROR_EVENT.test(text) : text.includes('"choices"'));
    return { status: res.status, complete, requestId: res.headers.get('cf-ray'), detail: complete ? undefined : failureDetail(text) };
  };
}

/** What a failed answer said: the text around its error event (an SSE stream carries it mid-stream), else its end. */
function failureDetail(text: string): string {
  const at = text.search(ERROR_EVENT);
  return at < 0 ? text.slice(-160) : text.slice(Math.max(0, at - 80), at + 240);
}
