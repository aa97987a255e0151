/** Series colours with at least 3:1 contrast against the white chart background (WCAG 1.4.11). */
export const PALETTE = ['#1f4fd1', '#b3261e', '#1b7f3b', '#8a4baf', '#a35200', '#006d77', '#5c5c5c', '#c2185b'];

export const colourOf = (index: number) => PALETTE[index % PALETTE.length];
