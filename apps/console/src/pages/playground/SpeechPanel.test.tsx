import { fireEvent, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { vi } from 'vitest';
import { fakeApi, json } from '../../testing/fake-api';
import { SpeechPanel } from './SpeechPanel';
import { TranscribePanel } from './TranscribePanel';

const flite = { id: 'svc-flite', type: 'tts', model_spec: { name: 'Flite', pricing: { input: { usd: 1, diem: 1 } } } };
const sphinx = { id: 'svc-pocketsphinx', type: 'asr', model_spec: { name: 'Sphinx', pricing: { per_audio_second: { usd: 0.0001, diem: 0.0001 } } } };

describe('speech and transcription in the playground', () => {
  beforeEach(() => {
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: () => 'blob:speech', revokeObjectURL: () => undefined }));
  });

  it('plays the synthesized speech and prices it per character', async () => {
    const calls = fakeApi({
      'GET /api/v1/models': () => json({ data: [flite] }),
      'POST /api/v1/audio/speech': () => new Response(new Uint8Array([82, 73, 70, 70]), { headers: { 'content-type': 'audio/wav' } }),
    });
    render(<SpeechPanel apiKey="k" />);
    await screen.findByRole('option', { name: 'Flite (svc-flite)' });
    await userEvent.type(screen.getByLabelText('Text'), 'Hello world');
    await userEvent.click(screen.getByRole('button', { name: 'Speak' }));
    expect(await screen.findByTestId('speech-audio')).toHaveAttribute('src', 'blob:speech');
    expect(screen.getByTestId('call-cost')).toHaveTextContent('0.000011 USD');
    expect(calls.find((c) => c.method === 'POST')!.body).toEqual({ model: 'svc-flite', input: 'Hello world', response_format: 'wav' });
  });

  it('uploads a file for transcription and shows the text and the cost of its duration', async () => {
    const calls = fakeApi({
      'GET /api/v1/models': () => json({ data: [sphinx] }),
      'POST /api/v1/audio/transcriptions': () => json({ text: 'hello world', duration: 2.5 }),
    });
    render(<TranscribePanel apiKey="k" />);
    await screen.findByRole('option', { name: 'Sphinx (svc-pocketsphinx)' });
    const input = screen.getByLabelText('Audio file');
    fireEvent.change(input, { target: { files: [new File([new Uint8Array([1, 2, 3])], 'hello.wav', { type: 'audio/wav' })] } });
    expect(screen.getByRole('button', { name: 'Transcribe' })).toBeEnabled();
    // jsdom's constraint validation does not see files set by a test: submit the form directly.
    fireEvent.submit(screen.getByRole('button', { name: 'Transcribe' }).closest('form')!);
    expect(await screen.findByTestId('transcript')).toHaveTextContent('hello world');
    expect(screen.getByTestId('call-cost')).toHaveTextContent('about 0.00025 USD');
    const form = calls.find((c) => c.method === 'POST')!.body as FormData;
    expect(form.get('model')).toBe('svc-pocketsphinx');
    expect(form.get('response_format')).toBe('verbose_json');
    expect((form.get('file') as File).name).toBe('hello.wav');
  });
});
