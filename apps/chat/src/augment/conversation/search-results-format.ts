import { ToolCall, WebSearchResult } from '@svc/contracts';

/** The tool the results are exposed through with `return_search_results_as_documents`. */
export const SEARCH_DOCUMENTS_TOOL = 'svc_web_search_documents';

/**
 * `return_search_results_as_documents`: the results as an OpenAI-compatible tool call whose
 * arguments are LangChain-style documents (`page_content` + `metadata`), so an agent reading
 * `message.tool_calls` gets them as Documents.
 */
export function searchDocumentsToolCall(results: WebSearchResult[], id = 'call_svc_web_search_documents'): ToolCall {
  const documents = results.map((r, i) => ({ page_content: r.content, metadata: { index: i + 1, title: r.title, url: r.url, date: r.date } }));
  return { id, type: 'function', function: { name: SEARCH_DOCUMENTS_TOOL, arguments: JSON.stringify({ documents }) } };
}

/** `svc_parameters.web_search_citations` of a response (the reference's shape: title, url, content, date). */
export function webSearchCitations(results: WebSearchResult[], maxContentChars = 1_000): Array<{ title: string; url: string; content: string; date: string }> {
  return results.map((r) => ({ title: r.title, url: r.url, content: r.content.slice(0, maxContentChars), date: r.date }));
}
