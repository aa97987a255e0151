import { failures, renderCpuTable, renderLoadTable, renderStreamTable } from './report';
import { fixtureResult, passing } from './result.fixture';

describe('report', () => {
  const result = fixtureResult(passing);

  it('shows each scenario with the direct baseline, the platform and Portkey, and the ratios on the platform row', () => {
    const table = renderLoadTable(result);
    expect(table).toMatch(/^non-stream 32 conn 1 acct\s+direct\s+20,000\s+0\.10\s+0\.30\s+0\.020\s+0\s*$/m);
    expect(table).toMatch(/^\s+platform\s+3,100\s+1\.20\s+3\.60\s+\+1\.10\s+0\.400\s+3\.10x\s+0\.40x\s+150\s+0$/m);
    expect(table).toMatch(/^\s+portkey\s+1,000\s+2\.50\s+7\.50\s+\+2\.40\s+1\.000\s+150\s+0$/m);
    expect(table).not.toMatch(/^non-stream 32 conn 64 acct\s+direct/m);
  });

  it('splits the platform CPU by process and keeps postgres and redis out of its total', () => {
    expect(renderCpuTable(result)).toMatch(
      /^stream 1 conn 64 acct\s+0\.200\s+0\.080\s+0\.050\s+0\.010\s+0\.010\s+0\.050\s+0\.400\s+1\.24\s+0\.030\s+0\.010\s+0\.020\s+1\.000$/m,
    );
  });

  it('shows streaming first byte added over the direct stream', () => {
    expect(renderStreamTable(result)).toMatch(/^platform\s+1\.70\s+5\.10\s+1\.80\s+2\.20\s+\+1\.40$/m);
  });

  it('lists runs with non-2xx answers, and none when all were 2xx', () => {
    expect(failures(result)).toEqual([]);
    const broken = fixtureResult(passing);
    broken.measurements[1].load.non2xx = 7;
    expect(failures(broken)).toEqual([`${broken.measurements[1].system}, non-stream 1 conn 1 acct: 7 non-2xx, 0 errors, 0 timeouts of 31007 requests`]);
  });
});
