import type { ValueGenerator } from '../../operators/generate.js';
import type { GeneratorConfig } from '../language/types.js';

/**
 * The value generator of a `generator` block: a pure function of the tick (slot number n,
 * scheduled offset in ms). `sine` reads time, the others the slot number, so counters and
 * sequences continue across gaps.
 */
export function valueGenerator(config: GeneratorConfig): ValueGenerator {
  switch (config.type) {
    case 'constant': {
      const { value } = config;
      return () => value;
    }
    case 'sine': {
      const { amplitude, offset } = config;
      const radiansPerMs = (2 * Math.PI) / (config.period_secs * 1000);
      return (_n, at) => offset + amplitude * Math.sin(radiansPerMs * at);
    }
    case 'step': {
      const { start, step_size } = config;
      return (n) => start + n * step_size;
    }
    case 'sequence': {
      const { values, repeat } = config;
      const last = values.length - 1;
      return repeat ? (n) => values[n % values.length]! : (n) => values[Math.min(n, last)]!;
    }
  }
}
