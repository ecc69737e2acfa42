// Guarantees the index stage's reading of a stored daily series' last days (stages/index-stage.ts lastDays) says what
// parsing the whole series and slicing it says, for series shorter than, as long as and longer than the days asked.
import { describe, expect, it } from 'vitest';
import { lastDays } from '../../build/stages/index-stage.ts';

describe('lastDays', () => {
  it('equals the whole series parsed and sliced', () => {
    const series = [
      [],
      [7],
      [1, 2],
      Array.from({ length: 30 }, (_, i) => i * 3),
      Array.from({ length: 31 }, (_, i) => i),
      Array.from({ length: 365 }, (_, i) => 1000 + i * 17),
    ];
    for (const daily of series) {
      for (const days of [1, 2, 30]) expect(lastDays(JSON.stringify(daily), days), `${daily.length} days, last ${days}`).toEqual(daily.slice(-days));
    }
  });
});
