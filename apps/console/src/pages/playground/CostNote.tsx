import { formatNano } from '../../lib/money';

interface Props {
  /** Nano-USD; null when the model's prices do not cover this call. */
  nano: bigint | null | undefined;
  /** The available balance before the call (x-svc-balance-usd), when the response had it. */
  balanceBefore?: string | null;
  approximate?: boolean;
}

/** The cost of one call, next to its result. */
export function CostNote({ nano, balanceBefore, approximate }: Props) {
  if (nano === undefined) return null;
  return (
    <p className="cost" role="status">
      Cost: <strong data-testid="call-cost">{nano === null ? 'not priced by this model' : `${approximate ? 'about ' : ''}${formatNano(nano)} USD`}</strong>
      {balanceBefore ? <span className="hint"> (balance before the call: {balanceBefore} USD)</span> : null}
    </p>
  );
}
