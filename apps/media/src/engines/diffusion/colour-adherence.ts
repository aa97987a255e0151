/**
 * The image model's colour-adherence metric (same as models/zoo/image/evaluate.py): pixels take the
 * nearest palette colour; the background is the most common class on the border; the object's
 * colour is the most common other class.
 */
export const PALETTE: Record<string, [number, number, number]> = {
  red: [220, 30, 30],
  orange: [245, 140, 20],
  yellow: [245, 220, 30],
  green: [30, 160, 50],
  blue: [30, 70, 220],
  purple: [140, 40, 180],
  black: [15, 15, 15],
  white: [250, 250, 250],
  gray: [128, 128, 128],
};

export function dominantColours(rgb: Uint8Array, size: number): { object: string; background: string } {
  const names = Object.keys(PALETTE);
  const cls = new Uint8Array(size * size);
  for (let p = 0; p < size * size; p++) {
    let best = 0;
    let bestD = Infinity;
    names.forEach((name, k) => {
      const [r, g, b] = PALETTE[name];
      const d = (rgb[p * 3] - r) ** 2 + (rgb[p * 3 + 1] - g) ** 2 + (rgb[p * 3 + 2] - b) ** 2;
      if (d < bestD) {
        bestD = d;
        best = k;
      }
    });
    cls[p] = best;
  }
  const border = new Array<number>(names.length).fill(0);
  for (let i = 0; i < size; i++) {
    border[cls[i]]++;
    border[cls[(size - 1) * size + i]]++;
    border[cls[i * size]]++;
    border[cls[i * size + size - 1]]++;
  }
  const bg = argmax(border);
  const inner = new Array<number>(names.length).fill(0);
  for (let p = 0; p < size * size; p++) if (cls[p] !== bg) inner[cls[p]]++;
  const obj = inner.some((v) => v > 0) ? argmax(inner) : bg;
  return { object: names[obj], background: names[bg] };
}

function argmax(v: number[]): number {
  let k = 0;
  for (let i = 1; i < v.length; i++) if (v[i] > v[k]) k = i;
  return k;
}
