import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ApiKey } from '../api/types';
import { fakeApi, json } from '../testing/fake-api';
import { KeysPage } from './KeysPage';

const session = { key: 'admin-secret', type: 'ADMIN' as const };
const key = (over: Partial<ApiKey> = {}): ApiKey => ({
  id: 'k1',
  apiKeyType: 'INFERENCE',
  description: 'ci runner',
  consumptionLimits: { usd: 5, diem: null },
  limitPeriod: 'MONTH',
  createdAt: '2026-11-20T10:00:00Z',
  expiresAt: null,
  last6Chars: 'abc123',
  lastUsedAt: null,
  usage: { trailingSevenDays: { usd: '1.25', diem: '0.00' } },
  ...over,
});

describe('the keys page', () => {
  it('lists keys with their 7-day usage and limit', async () => {
    fakeApi({ 'GET /api/v1/api_keys': () => json({ data: [key()] }) });
    render(<KeysPage session={session} />);
    const item = await screen.findByRole('listitem', { name: 'Key ci runner' });
    expect(within(item).getByTestId('key-week-usage')).toHaveTextContent('1.25 USD, 0.00 DIEM');
    expect(item).toHaveTextContent('5 USD (Month (UTC))');
    expect(item).toHaveTextContent('…abc123');
  });

  it('creates a key and shows the secret once, with a copy button', async () => {
    let keys: ApiKey[] = [];
    const calls = fakeApi({
      'GET /api/v1/api_keys': () => json({ data: keys }),
      'POST /api/v1/api_keys': () => {
        keys = [key({ id: 'k2', description: 'new one' })];
        return json({ success: true, data: { id: 'k2', apiKey: 'svc_the_secret_value', description: 'new one' } });
      },
    });
    render(<KeysPage session={session} />);
    await userEvent.type(screen.getByLabelText('Description'), 'new one');
    await userEvent.type(screen.getByLabelText('USD limit per period (blank: none)'), '2.5');
    await userEvent.click(screen.getByRole('button', { name: 'Create key' }));
    expect(await screen.findByTestId('new-key-secret')).toHaveTextContent('svc_the_secret_value');
    expect(screen.getByRole('button', { name: 'Copy secret' })).toBeInTheDocument();
    const post = calls.find((c) => c.method === 'POST')!;
    expect(post.body).toEqual({ apiKeyType: 'INFERENCE', description: 'new one', consumptionLimit: { usd: 2.5, diem: null }, limitPeriod: 'EPOCH' });
    await screen.findByRole('listitem', { name: 'Key new one' });
    await userEvent.click(screen.getByRole('button', { name: 'Done' }));
    expect(screen.queryByText('svc_the_secret_value')).not.toBeInTheDocument();
  });

  it('revokes only after a confirmation, and shows the API message when it fails', async () => {
    const calls = fakeApi({
      'GET /api/v1/api_keys': () => json({ data: [key()] }),
      'DELETE /api/v1/api_keys': () => json({ error: 'API key not found.' }, 404),
    });
    render(<KeysPage session={session} />);
    const item = await screen.findByRole('listitem', { name: 'Key ci runner' });
    await userEvent.click(within(item).getByRole('button', { name: 'Revoke' }));
    expect(calls.some((c) => c.method === 'DELETE')).toBe(false);
    expect(within(item).getByRole('button', { name: 'Cancel' })).toHaveFocus();
    await userEvent.keyboard('{Escape}');
    expect(within(item).queryByRole('alertdialog')).not.toBeInTheDocument();
    await userEvent.click(within(item).getByRole('button', { name: 'Revoke' }));
    await userEvent.click(within(item).getByRole('button', { name: 'Revoke key' }));
    expect(await within(item).findByRole('alert')).toHaveTextContent('API key not found.');
    expect(calls.find((c) => c.method === 'DELETE')!.url).toBe('/api/v1/api_keys?id=k1');
  });

  it('edits description and limit with PATCH', async () => {
    const calls = fakeApi({ 'GET /api/v1/api_keys': () => json({ data: [key()] }), 'PATCH /api/v1/api_keys': () => json({ success: true, data: key() }) });
    render(<KeysPage session={session} />);
    const item = await screen.findByRole('listitem', { name: 'Key ci runner' });
    await userEvent.click(within(item).getByRole('button', { name: 'Edit' }));
    const description = within(item).getByLabelText('Description');
    await userEvent.clear(description);
    await userEvent.type(description, 'renamed');
    await userEvent.clear(within(item).getByLabelText('USD limit per period (blank: none)'));
    await userEvent.click(within(item).getByRole('button', { name: 'Save' }));
    await screen.findByRole('button', { name: 'Edit' });
    expect(calls.find((c) => c.method === 'PATCH')!.body).toEqual({
      id: 'k1',
      description: 'renamed',
      consumptionLimit: { usd: null, diem: null },
      limitPeriod: 'MONTH',
    });
  });
});
