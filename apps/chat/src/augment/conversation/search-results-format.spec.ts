import { searchDocumentsToolCall, webSearchCitations } from './search-results-format';

const results = [
  { title: 'A', url: 'https://a.example/', content: 'alpha text', date: '2026-01-01' },
  { title: 'B', url: 'https://b.example/', content: 'beta text', date: '' },
];

describe('search results for chat responses', () => {
  it('exposes results as a svc_web_search_documents tool call with LangChain-style documents', () => {
    const call = searchDocumentsToolCall(results);
    expect(call).toMatchObject({ id: 'call_svc_web_search_documents', type: 'function', function: { name: 'svc_web_search_documents' } });
    expect(JSON.parse(call.function.arguments)).toEqual({
      documents: [
        { page_content: 'alpha text', metadata: { index: 1, title: 'A', url: 'https://a.example/', date: '2026-01-01' } },
        { page_content: 'beta text', metadata: { index: 2, title: 'B', url: 'https://b.example/', date: '' } },
      ],
    });
  });

  it('lists citations with content cut to a length', () => {
    expect(webSearchCitations(results, 5)).toEqual([
      { title: 'A', url: 'https://a.example/', content: 'alpha', date: '2026-01-01' },
      { title: 'B', url: 'https://b.example/', content: 'beta ', date: '' },
    ]);
  });
});
