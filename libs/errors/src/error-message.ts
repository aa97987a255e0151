/** The message of anything thrown: an Error's message, else the value as text (for logs and wrapped errors). */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
