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
    const complete = res.status === 200 && (stream ? text.includes('data: [DONE]') && !text.includes('"error"') : text.includes('"choices"'));
    return { status: res.status, complete, requestId: res.headers.get('cf-ray'), detail: complete ? undefined : text.slice(-160) };
  };
}
