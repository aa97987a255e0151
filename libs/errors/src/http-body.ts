import { ErrorDetails } from './error-details';

/** StandardError / DetailedError from the spec. */
export interface HttpErrorBody {
  error: string;
  details?: ErrorDetails;
}

export const ADMIN_REQUIRED_MESSAGE = 'Admin API key required';
