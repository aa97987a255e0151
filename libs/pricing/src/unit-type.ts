/** The unit a quote line counts (QuoteLine `unitType`). */
export type UnitType = 'tokens' | 'images' | 'chars' | 'seconds' | 'credits' | 'generations' | 'requests' | 'frames' | 'pixel-seconds';
