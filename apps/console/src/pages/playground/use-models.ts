import { callJson } from '../../api/client';
import { Model } from '../../api/types';
import { useApi } from '../../lib/use-api';

/** The catalog's models of one type (GET /models?type=...), for a picker and for prices. */
export function useModels(type: string) {
  return useApi(async (signal) => (await callJson<{ data: Model[] }>('/models', { key: '', query: { type }, signal })).data.data, [type]);
}
