import { ModerationResult } from '@svc/contracts';

/** OpenAI's CreateModerationResponse. */
export interface ModerationsResponse {
  id: string;
  /** The catalog id of the model that ran. */
  model: string;
  results: ModerationResult[];
}
