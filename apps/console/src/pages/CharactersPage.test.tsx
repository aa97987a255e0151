import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fakeApi, json } from '../testing/fake-api';
import { CharactersPage } from './CharactersPage';

const pirate = { slug: 'pirate', name: 'Pirate', description: 'Arr', systemPrompt: 'Talk like a pirate.', modelId: 'svc-tiny-random', tags: ['fun'] };

describe('the characters page', () => {
  it('searches, and lets an ADMIN edit a character by posting its slug again', async () => {
    const calls = fakeApi({
      'GET /api/v1/characters': () => json({ data: [pirate] }, 200, { 'x-pagination-total': '1' }),
      'GET /api/v1/characters/pirate': () => json({ data: pirate }),
      'POST /api/v1/characters': () => json({ data: pirate }),
    });
    render(<CharactersPage session={{ key: 'admin', type: 'ADMIN' }} />);
    await screen.findByRole('heading', { name: 'Pirate' });
    await userEvent.type(screen.getByLabelText('Search'), 'pir');
    await screen.findByRole('heading', { name: 'Pirate' });
    expect(calls.at(-1)!.url).toBe('/api/v1/characters?limit=24&offset=0&search=pir');
    await userEvent.click(screen.getByRole('button', { name: 'Edit Pirate' }));
    const prompt = await screen.findByLabelText('System prompt');
    expect(prompt).toHaveValue('Talk like a pirate.');
    expect(screen.getByLabelText('Slug')).toHaveAttribute('readonly');
    await userEvent.clear(prompt);
    await userEvent.type(prompt, 'Talk like a sailor.');
    await userEvent.click(screen.getByRole('button', { name: 'Save character' }));
    await screen.findByRole('button', { name: 'Create character' });
    expect(calls.find((c) => c.method === 'POST')!.body).toEqual({
      slug: 'pirate',
      name: 'Pirate',
      description: 'Arr',
      systemPrompt: 'Talk like a sailor.',
      modelId: 'svc-tiny-random',
      tags: ['fun'],
    });
  });
});
