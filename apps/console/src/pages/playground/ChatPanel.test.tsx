import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fakeApi, json } from '../../testing/fake-api';
import { ChatPanel } from './ChatPanel';

const model = { id: 'tiny', type: 'text', model_spec: { name: 'Tiny', pricing: { input: { usd: 0.01, diem: 0.01 }, output: { usd: 0.02, diem: 0.02 } } } };
const sse = (...events: string[]) =>
  new Response(
    new ReadableStream({
      start(controller) {
        for (const e of events) controller.enqueue(new TextEncoder().encode(`data: ${e}\n\n`));
        controller.close();
      },
    }),
    { headers: { 'content-type': 'text/event-stream', 'x-svc-balance-usd': '99.5' } },
  );

describe('the chat playground', () => {
  it('streams the answer, sends the svc_parameters toggles, and shows the cost from the usage chunk and the model prices', async () => {
    const calls = fakeApi({
      'GET /api/v1/models': () => json({ data: [model] }),
      'POST /api/v1/chat/completions': () =>
        sse(
          JSON.stringify({ choices: [{ delta: { role: 'assistant' } }] }),
          JSON.stringify({ choices: [{ delta: { content: 'Hello' } }] }),
          JSON.stringify({ choices: [{ delta: { content: ' there' } }] }),
          JSON.stringify({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 2 } }),
          '[DONE]',
        ),
    });
    render(<ChatPanel apiKey="inference-key" />);
    await screen.findByRole('option', { name: 'Tiny (tiny)' });
    await userEvent.click(screen.getByLabelText('Web citations'));
    await userEvent.type(screen.getByLabelText('Message', { selector: 'textarea' }), 'Hi');
    await userEvent.click(screen.getByRole('button', { name: 'Send' }));
    expect(await screen.findByTestId('call-cost')).toHaveTextContent('0.00000007 USD');
    expect(screen.getByTestId('assistant-turn')).toHaveTextContent('Hello there');
    expect(screen.getByText(/balance before the call: 99.5 USD/)).toBeInTheDocument();
    const post = calls.find((c) => c.method === 'POST')!;
    expect(post.headers.authorization).toBe('Bearer inference-key');
    expect(post.body).toMatchObject({
      model: 'tiny',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'Hi' }],
      svc_parameters: { enable_web_citations: true, enable_web_search: 'off' },
    });
  });

  it("shows the API's message when the call is refused", async () => {
    fakeApi({
      'GET /api/v1/models': () => json({ data: [model] }),
      'POST /api/v1/chat/completions': () => json({ error: 'Insufficient balance: this request may cost up to 0.01 USD.' }, 402),
    });
    render(<ChatPanel apiKey="k" />);
    await screen.findByRole('option', { name: 'Tiny (tiny)' });
    await userEvent.type(screen.getByLabelText('Message', { selector: 'textarea' }), 'Hi');
    await userEvent.click(screen.getByRole('button', { name: 'Send' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Insufficient balance: this request may cost up to 0.01 USD.');
  });
});
