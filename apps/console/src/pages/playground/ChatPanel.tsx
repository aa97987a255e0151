import { FormEvent, useRef, useState } from 'react';
import { call } from '../../api/client';
import { ErrorNote } from '../../components/ErrorNote';
import { costOf } from '../../lib/cost';
import { sseData } from '../../lib/sse';
import { messageOf } from '../../lib/use-api';
import { CostNote } from './CostNote';
import { ModelPicker } from './ModelPicker';
import { useModels } from './use-models';

interface Turn {
  role: 'user' | 'assistant';
  content: string;
}

interface Chunk {
  choices?: Array<{ delta?: { content?: string | null } }>;
  usage?: { prompt_tokens: number; completion_tokens: number } | null;
  error?: string;
}

export interface SvcToggles {
  enable_web_search: 'off' | 'on' | 'auto';
  enable_web_citations: boolean;
  enable_web_scraping: boolean;
  include_svc_system_prompt: boolean;
}

/** Streamed chat (/chat/completions, stream: true, usage in the last chunk), with svc_parameters toggles. */
export function ChatPanel({ apiKey }: { apiKey: string }) {
  const models = useModels('text');
  const [model, setModel] = useState('');
  const [turns, setTurns] = useState<Turn[]>([]);
  const [input, setInput] = useState('');
  const [params, setParams] = useState<SvcToggles>({
    enable_web_search: 'off',
    enable_web_citations: false,
    enable_web_scraping: false,
    include_svc_system_prompt: true,
  });
  const [maxTokens, setMaxTokens] = useState('');
  const [streaming, setStreaming] = useState(false);
  const [cost, setCost] = useState<{ nano: bigint | null; before: string | null }>();
  const [error, setError] = useState<string>();
  const abort = useRef<AbortController>(null);
  const chosen = model || models.data?.[0]?.id || '';

  const send = async (e: FormEvent) => {
    e.preventDefault();
    const history: Turn[] = [...turns, { role: 'user', content: input }];
    setTurns([...history, { role: 'assistant', content: '' }]);
    setInput('');
    setError(undefined);
    setCost(undefined);
    setStreaming(true);
    abort.current = new AbortController();
    try {
      const response = await call('/chat/completions', {
        key: apiKey,
        method: 'POST',
        body: {
          model: chosen,
          messages: history,
          stream: true,
          stream_options: { include_usage: true },
          svc_parameters: params,
          ...(maxTokens ? { max_tokens: Number(maxTokens) } : {}),
        },
        signal: abort.current.signal,
      });
      let answer = '';
      let usage: Chunk['usage'] = null;
      for await (const data of sseData(response.body!)) {
        const chunk = JSON.parse(data) as Chunk;
        if (chunk.error) throw new Error(chunk.error);
        if (chunk.usage) usage = chunk.usage;
        const piece = chunk.choices?.[0]?.delta?.content;
        if (piece) {
          answer += piece;
          setTurns([...history, { role: 'assistant', content: answer }]);
        }
      }
      const pricing = models.data?.find((m) => m.id === chosen)?.model_spec.pricing;
      setCost({
        nano: usage && pricing ? costOf(pricing, { kind: 'text', promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens }) : null,
        before: response.headers.get('x-svc-balance-usd'),
      });
    } catch (err) {
      if (!(err instanceof DOMException && err.name === 'AbortError')) setError(messageOf(err));
    } finally {
      setStreaming(false);
    }
  };

  const toggle = (name: 'enable_web_citations' | 'enable_web_scraping' | 'include_svc_system_prompt', label: string) => (
    <label className="inline">
      <input type="checkbox" checked={params[name]} onChange={(e) => setParams({ ...params, [name]: e.target.checked })} /> {label}
    </label>
  );

  return (
    <section aria-label="Chat" className="card">
      <form onSubmit={(e) => void send(e)} className="fields">
        <ModelPicker id="chat-model" models={models.data} value={chosen} onChange={setModel} />
        <label htmlFor="chat-max-tokens">Max tokens (optional)</label>
        <input id="chat-max-tokens" type="number" min="1" step="1" value={maxTokens} onChange={(e) => setMaxTokens(e.target.value)} />
        <fieldset>
          <legend>svc_parameters</legend>
          <label htmlFor="web-search">Web search</label>
          <select
            id="web-search"
            value={params.enable_web_search}
            onChange={(e) => setParams({ ...params, enable_web_search: e.target.value as SvcToggles['enable_web_search'] })}
          >
            <option value="off">off</option>
            <option value="on">on</option>
            <option value="auto">auto</option>
          </select>
          {toggle('enable_web_citations', 'Web citations')}
          {toggle('enable_web_scraping', 'Scrape URLs in the message')}
          {toggle('include_svc_system_prompt', 'Include the default system prompt')}
        </fieldset>
        <div className="conversation" aria-live="polite" aria-busy={streaming}>
          {turns.map((t, i) => (
            <p key={i} className={`turn ${t.role}`} data-testid={t.role === 'assistant' ? 'assistant-turn' : undefined}>
              <strong>{t.role === 'user' ? 'You' : 'Model'}:</strong> {t.content}
            </p>
          ))}
        </div>
        <label htmlFor="chat-input">Message</label>
        <textarea id="chat-input" required rows={3} value={input} onChange={(e) => setInput(e.target.value)} />
        <div className="actions">
          <button type="submit" disabled={streaming || !chosen}>
            Send
          </button>
          {streaming && (
            <button type="button" onClick={() => abort.current?.abort()}>
              Stop
            </button>
          )}
          <button type="button" disabled={streaming} onClick={() => setTurns([])}>
            New conversation
          </button>
        </div>
      </form>
      <CostNote nano={cost?.nano} balanceBefore={cost?.before} />
      <ErrorNote message={error} />
    </section>
  );
}
