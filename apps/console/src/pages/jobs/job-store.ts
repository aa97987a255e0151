/** Queued jobs of this tab (ids only), so leaving the Jobs page does not lose them. */
export interface QueuedJob {
  kind: 'audio' | 'video';
  model: string;
  queueId: string;
  label: string;
  queuedAt: string;
}

const STORAGE_KEY = 'svc-console-jobs';

export function loadJobs(): QueuedJob[] {
  try {
    const parsed = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? '[]') as unknown;
    return Array.isArray(parsed) ? (parsed as QueuedJob[]) : [];
  } catch {
    return [];
  }
}

export function saveJobs(jobs: QueuedJob[]): void {
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify(jobs));
}
