/** An API error, read out by screen readers as it appears. */
export function ErrorNote({ message }: { message: string | undefined }) {
  if (!message) return null;
  return (
    <p className="error" role="alert">
      {message}
    </p>
  );
}
