import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { App } from '../App';
import { fakeApi, json } from '../testing/fake-api';

describe('signing in', () => {
  it('keeps an ADMIN key in session storage only and shows the admin pages', async () => {
    const calls = fakeApi({
      'GET /api/v1/api_keys': () => json({ object: 'list', data: [] }),
      'GET /api/v1/billing/balance': () => json({ balances: { usd: 1, diem: null }, consumptionCurrency: 'USD' }),
    });
    render(<App />);
    await userEvent.type(screen.getByLabelText('API key'), 'admin-secret');
    await userEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByRole('link', { name: 'API keys' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Credits and usage' })).toBeInTheDocument();
    expect(calls[0].headers.authorization).toBe('Bearer admin-secret');
    expect(sessionStorage.getItem('svc-console-session')).toContain('admin-secret');
    expect(localStorage.length).toBe(0);
    expect(document.cookie).toBe('');
    expect(location.href).not.toContain('admin-secret');
  });

  it('signs an INFERENCE key in to the playground and its limits only', async () => {
    fakeApi({
      'GET /api/v1/api_keys': () => json({ error: 'This endpoint requires an ADMIN API key.' }, 403),
      'GET /api/v1/api_keys/rate_limits': () =>
        json({ data: { apiTier: { id: 'paid' }, keyExpiration: null, nextEpochBegins: '2026-11-26T00:00:00Z', balances: {}, rateLimits: [] } }),
    });
    render(<App />);
    await userEvent.type(screen.getByLabelText('API key'), 'inference-secret');
    await userEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByRole('link', { name: 'Playground' })).toBeInTheDocument();
    expect(
      within(screen.getByRole('navigation', { name: 'Pages' }))
        .getAllByRole('link')
        .map((l) => l.textContent),
    ).toEqual(['Limits', 'Playground']);
    expect(screen.getByText('Inference key')).toBeInTheDocument();
  });

  it("shows the API's own message for a wrong key and stores nothing", async () => {
    fakeApi({ 'GET /api/v1/api_keys': () => json({ error: 'Invalid API key.' }, 401) });
    render(<App />);
    await userEvent.type(screen.getByLabelText('API key'), 'wrong');
    await userEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Invalid API key.');
    expect(sessionStorage.length).toBe(0);
  });
});
