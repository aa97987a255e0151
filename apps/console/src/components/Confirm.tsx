import { useEffect, useRef } from 'react';

interface Props {
  message: string;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
}

/** An inline confirmation: focus lands on Cancel, Escape cancels. */
export function Confirm({ message, confirmLabel, onConfirm, onCancel }: Props) {
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => cancel.current?.focus(), []);
  return (
    <div role="alertdialog" aria-label={message} className="confirm" onKeyDown={(e) => e.key === 'Escape' && onCancel()}>
      <p>{message}</p>
      <button type="button" className="danger" onClick={onConfirm}>
        {confirmLabel}
      </button>
      <button type="button" ref={cancel} onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}
