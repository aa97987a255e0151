import { Model } from '../../api/types';

interface Props {
  id: string;
  models: Model[] | undefined;
  value: string;
  onChange: (id: string) => void;
}

/** A labelled model select; deprecated models say so. */
export function ModelPicker({ id, models, value, onChange }: Props) {
  return (
    <>
      <label htmlFor={id}>Model</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
        {models?.map((m) => (
          <option key={m.id} value={m.id}>
            {m.model_spec.name} ({m.id}){m.model_spec.deprecation ? ' — deprecated' : ''}
          </option>
        ))}
      </select>
    </>
  );
}
