import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
// The catalog schema's source as text (Vite's `?raw`), read by this test only: nothing of libs/
// enters the console's bundle, and the filter cannot fall behind a model type the catalog gains.
import catalogSchemaSource from '../../../../libs/catalog/src/catalog.schema.ts?raw';
import { Model } from '../api/types';
import { fakeApi, json } from '../testing/fake-api';
import { MODEL_TYPES, ModelsPage } from './ModelsPage';

/** The catalog's model types, from `export const MODEL_TYPES = [...] as const` in libs/catalog/src/catalog.schema.ts. */
function catalogModelTypes(): string[] {
  const list = /export const MODEL_TYPES = \[([^\]]*)\] as const/.exec(catalogSchemaSource)?.[1];
  if (list === undefined) throw new Error('libs/catalog/src/catalog.schema.ts no longer declares MODEL_TYPES as a literal list: update this test');
  return [...list.matchAll(/'([^']+)'/g)].map((m) => m[1]);
}

const model = (id: string, type: string, over: Partial<Model['model_spec']> = {}): Model => ({
  id,
  type,
  model_spec: { name: id, pricing: {}, ...over },
});

describe('the models page', () => {
  it('offers every model type of the catalog in its filter, with all and code', () => {
    const catalog = catalogModelTypes();
    expect(catalog).toContain('moderation');
    expect([...MODEL_TYPES].sort()).toEqual(['all', 'code', ...catalog].sort());
    fakeApi({ 'GET /api/v1/models': () => json({ object: 'list', data: [] }) });
    render(<ModelsPage />);
    const options = within(screen.getByLabelText('Type')).getAllByRole('option');
    expect(options.map((o) => o.textContent)).toEqual([...MODEL_TYPES]);
  });

  it('lists the moderation models when that type is chosen', async () => {
    const calls = fakeApi({
      'GET /api/v1/models': (call) => {
        const type = new URL(call.url, 'http://console.test').searchParams.get('type');
        const data = type === 'moderation' ? [model('svc-image-safety', 'moderation', { name: 'Image safety' })] : [model('svc-zoo-chat', 'text')];
        return json({ object: 'list', type, data });
      },
    });
    render(<ModelsPage />);
    await screen.findByRole('listitem', { name: 'Model svc-zoo-chat' });
    await userEvent.selectOptions(screen.getByLabelText('Type'), 'moderation');
    const card = await screen.findByRole('listitem', { name: 'Model svc-image-safety' });
    expect(card).toHaveTextContent('Image safety');
    expect(card).toHaveTextContent('moderation');
    expect(screen.queryByRole('listitem', { name: 'Model svc-zoo-chat' })).not.toBeInTheDocument();
    expect(calls.map((c) => c.url)).toEqual(['/api/v1/models?type=all', '/api/v1/models?type=moderation']);
  });
});
