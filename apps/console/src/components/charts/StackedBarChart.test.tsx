import { render, screen } from '@testing-library/react';
import { toDays } from '../../pages/credits/UsageCharts';
import { StackedBarChart } from './StackedBarChart';

describe('the stacked bar chart', () => {
  it('draws one segment per model and day with its value, oldest day first, and a table with the totals', () => {
    const days = toDays([
      { date: '2026-11-25', 'model-a': 0.5, 'model-b': 0.25 },
      { date: Date.UTC(2026, 10, 24), 'model-a': 0, 'model-b': 1 },
    ]);
    const { container } = render(<StackedBarChart title="Spend" days={days} series={['model-a', 'model-b']} unit="USD" />);
    const groups = [...container.querySelectorAll('svg g[data-date]')].map((g) => g.getAttribute('data-date'));
    expect(groups).toEqual(['2026-11-24', '2026-11-25']);
    const segments = [...container.querySelectorAll('rect[data-series]')].map((r) => [
      r.closest('g')!.getAttribute('data-date'),
      r.getAttribute('data-series'),
      r.getAttribute('data-value'),
    ]);
    expect(segments).toEqual([
      ['2026-11-24', 'model-b', '1'],
      ['2026-11-25', 'model-a', '0.5'],
      ['2026-11-25', 'model-b', '0.25'],
    ]);
    // Heights scale with value: the 25th (0.75 in all) stands three quarters as tall as the 24th (1).
    const heights = [...container.querySelectorAll('rect[data-series]')].map((r) => Number(r.getAttribute('height')));
    expect(heights[1] + heights[2]).toBeCloseTo(heights[0] * 0.75);
    expect(screen.getByRole('img', { name: /Spend: 2 days/ })).toBeInTheDocument();
    expect(container.querySelector('[data-total="2026-11-25"]')).toHaveTextContent('0.75');
  });
});
