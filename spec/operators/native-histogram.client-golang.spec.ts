import { expect } from 'chai';
import { bucketIndex } from '../../operators/internal/exponential-buckets.js';
import {
  boundaryCases,
  bucketByDefinition,
  clientGolangBuckets,
  clientGolangInstalled,
  stepUlps,
  type Observation,
} from '../support/native-buckets/index.js';

/**
 * bucketIndex against Prometheus' client_golang 1.14 (Debian's golang-github-prometheus-client-golang-dev, which
 * .ci/run installs), observation by observation (spec/support/native-buckets/buckets.go), on every bucket bound of
 * every schema and 1 to 3 ulps around it, powers of two, subnormals and the greatest doubles. client_golang strays
 * from the definition in two known ways, and svc follows the definition there (docs/native-histograms.md).
 */
describe('nativeHistogram bucketIndex against client_golang', function () {
  // The first run builds the program: Go compiles client_golang, protobuf and the standard library.
  this.timeout(120_000);
  let cases: Observation[];
  let golang: number[];
  let exact: number[];

  before(async function () {
    if (!clientGolangInstalled()) {
      console.warn(
        '    client_golang specs skipped: apt-get install golang-go golang-github-prometheus-client-golang-dev',
      );
      this.skip();
    }
    cases = boundaryCases();
    golang = await clientGolangBuckets(cases);
    exact = cases.map(({ value, schema }) => bucketByDefinition(value, schema));
  });

  /** The observations client_golang puts in the bucket `agrees` says, each with its and the definition's index. */
  const where = (agrees: boolean) =>
    cases
      .map((observation, k) => ({ ...observation, golang: golang[k]!, exact: exact[k]! }))
      .filter((o) => (o.golang === o.exact) === agrees);

  it('puts every observation in the bucket client_golang does wherever client_golang follows the definition', () => {
    const followed = where(true);
    const differing = followed
      .filter(({ value, schema, golang }) => bucketIndex(value, schema) !== golang)
      .map(({ value, schema, golang }) => `${value} at schema ${schema}: ${bucketIndex(value, schema)}, not ${golang}`);
    expect(differing.slice(0, 5), `${differing.length} of ${followed.length} differ`).to.deep.equal([]);
    expect(followed.length).to.be.above(0.75 * cases.length);
  });

  it('finds client_golang 1.14 off the definition only by its truncation and its bounds table', () => {
    const unexplained = where(false).filter(({ value, schema, golang, exact }) => {
      // A negative schema's index below 0: ⌈key / 2^-schema⌉, key = ⌈log2 value⌉ (the index at schema 0), taken as
      // (key + 2^-schema − 1) / 2^-schema in Go's integer division, which truncates towards 0 rather than rounding
      // down (prometheus/client_golang#1279, fixed in 1.16).
      const perBucket = 2 ** -schema;
      if (schema < 0 && exact < 0)
        return golang !== Math.trunc((bucketByDefinition(value, 0) + perBucket - 1) / perBucket);
      // A positive schema's literal table of bounds is 3 ulps below to 1 ulp above the greatest double not above the
      // bound: only a value that close to a bound can be one bucket off.
      const nearBound =
        bucketByDefinition(stepUlps(value, -1), schema) !== bucketByDefinition(stepUlps(value, 3), schema);
      return !(schema > 0 && nearBound && Math.abs(golang - exact) === 1);
    });
    expect(unexplained.slice(0, 5)).to.deep.equal([]);
  });

  it("rejects with the Go program's reason for an observation it refuses, though it leaves the rest unread", async () => {
    const error = await clientGolangBuckets([{ schema: 9, value: 1 }, ...cases]).catch((e: Error) => e);
    expect(error)
      .to.be.an('error')
      .with.property('message')
      .that.matches(/line 1 \("9 1"\): schema: want a whole/);
  });
});
