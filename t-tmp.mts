import { starterScenario } from './lib/new/starter.js';
console.log(starterScenario({ signal: process.argv[2] as any, sink: process.argv[3], encoder: process.argv[4] }));
