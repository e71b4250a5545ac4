import { expect } from 'chai';
import { labelBoxes } from '../../console/src/mark-labels.js';

describe('console mark labels (docs/console.md)', () => {
  const plot = { left: 50, top: 10, width: 400, height: 40 };

  it('puts each label in the first row from the top where it covers no other', () => {
    const boxes = labelBoxes(['start', '×5', 'gap'], [100, 100, 300], [30, 15, 20], plot);
    expect(boxes.map(({ text, mark, left, top }) => ({ text, mark, left, top }))).to.deep.equal([
      { text: 'start', mark: 0, left: 103, top: 11 },
      { text: '×5', mark: 1, left: 103, top: 24 },
      { text: 'gap', mark: 2, left: 303, top: 11 },
    ]);
  });

  it('leaves out a label no row has room for, instead of stacking it on the others', () => {
    // A day of gaps and bursts: 200 marks 2 pixels apart, in a plot of three rows.
    const xs = Array.from({ length: 200 }, (_, i) => 50 + i * 2);
    const boxes = labelBoxes(
      xs.map(() => 'gap'),
      xs,
      xs.map(() => 20),
      plot,
    );
    expect(boxes.length).to.be.within(3, 60);
    for (const [i, a] of boxes.entries()) {
      expect(a.top + a.height, a.text).to.be.at.most(plot.top + plot.height);
      for (const b of boxes.slice(i + 1)) {
        const apart = a.left + a.width <= b.left || b.left + b.width <= a.left || a.top !== b.top;
        expect(apart, `labels of marks ${a.mark} and ${b.mark}`).to.equal(true);
      }
    }
  });
});
