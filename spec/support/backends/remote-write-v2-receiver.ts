import { createServer } from 'node:http';
import protobuf from 'protobufjs';
import { uncompress } from 'snappyjs';

/**
 * `io.prometheus.write.v2` as the published definition declares it (prometheus/prometheus
 * `prompb/io/prometheus/write/v2/types.proto`, rc.4 as Prometheus 3.8 speaks it; the spec
 * https://prometheus.io/docs/specs/prw/remote_write_spec_2_0/ quotes the same messages), field by field, plus
 * `TimeSeries.created_timestamp` (field 6) of rc.3 and before, which rc.4 reserves: the receiver reads both.
 * Written apart from the sink's own tags (lib/protocols/remote-write-v2.ts), read off the published
 * types.proto field by field (names, numbers, types) at its rc.3 and rc.4 versions and checked against the
 * messages the spec page quotes; protobufjs decodes with it, so the sink's bytes meet a decoder it did not write.
 */
export const V2_DESCRIPTOR = {
  nested: {
    io: {
      nested: {
        prometheus: {
          nested: {
            write: {
              nested: {
                v2: {
                  nested: {
                    Request: {
                      fields: {
                        symbols: { rule: 'repeated', type: 'string', id: 4 },
                        timeseries: { rule: 'repeated', type: 'TimeSeries', id: 5 },
                      },
                    },
                    TimeSeries: {
                      fields: {
                        labelsRefs: { rule: 'repeated', type: 'uint32', id: 1 },
                        samples: { rule: 'repeated', type: 'Sample', id: 2 },
                        histograms: { rule: 'repeated', type: 'Histogram', id: 3 },
                        exemplars: { rule: 'repeated', type: 'Exemplar', id: 4 },
                        metadata: { type: 'Metadata', id: 5 },
                        createdTimestamp: { type: 'int64', id: 6 },
                      },
                    },
                    Exemplar: {
                      fields: {
                        labelsRefs: { rule: 'repeated', type: 'uint32', id: 1 },
                        value: { type: 'double', id: 2 },
                        timestamp: { type: 'int64', id: 3 },
                      },
                    },
                    Sample: {
                      fields: {
                        value: { type: 'double', id: 1 },
                        timestamp: { type: 'int64', id: 2 },
                        startTimestamp: { type: 'int64', id: 3 },
                      },
                    },
                    Metadata: {
                      fields: {
                        type: { type: 'MetricType', id: 1 },
                        helpRef: { type: 'uint32', id: 3 },
                        unitRef: { type: 'uint32', id: 4 },
                      },
                      nested: {
                        MetricType: {
                          values: {
                            METRIC_TYPE_UNSPECIFIED: 0,
                            METRIC_TYPE_COUNTER: 1,
                            METRIC_TYPE_GAUGE: 2,
                            METRIC_TYPE_HISTOGRAM: 3,
                            METRIC_TYPE_GAUGEHISTOGRAM: 4,
                            METRIC_TYPE_SUMMARY: 5,
                            METRIC_TYPE_INFO: 6,
                            METRIC_TYPE_STATESET: 7,
                          },
                        },
                      },
                    },
                    Histogram: {
                      oneofs: {
                        count: { oneof: ['countInt', 'countFloat'] },
                        zeroCount: { oneof: ['zeroCountInt', 'zeroCountFloat'] },
                      },
                      fields: {
                        countInt: { type: 'uint64', id: 1 },
                        countFloat: { type: 'double', id: 2 },
                        sum: { type: 'double', id: 3 },
                        schema: { type: 'sint32', id: 4 },
                        zeroThreshold: { type: 'double', id: 5 },
                        zeroCountInt: { type: 'uint64', id: 6 },
                        zeroCountFloat: { type: 'double', id: 7 },
                        negativeSpans: { rule: 'repeated', type: 'BucketSpan', id: 8 },
                        negativeDeltas: { rule: 'repeated', type: 'sint64', id: 9 },
                        negativeCounts: { rule: 'repeated', type: 'double', id: 10 },
                        positiveSpans: { rule: 'repeated', type: 'BucketSpan', id: 11 },
                        positiveDeltas: { rule: 'repeated', type: 'sint64', id: 12 },
                        positiveCounts: { rule: 'repeated', type: 'double', id: 13 },
                        resetHint: { type: 'int32', id: 14 },
                        timestamp: { type: 'int64', id: 15 },
                        customValues: { rule: 'repeated', type: 'double', id: 16 },
                        startTimestamp: { type: 'int64', id: 17 },
                      },
                    },
                    BucketSpan: {
                      fields: { offset: { type: 'sint32', id: 1 }, length: { type: 'uint32', id: 2 } },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
};

/** The 2.0 request message. */
export const V2Request = protobuf.Root.fromJSON(V2_DESCRIPTOR).lookupType('io.prometheus.write.v2.Request');

/** A label set, a sample or histogram, an exemplar: a 2.0 time series with its references resolved. */
export interface V2Series {
  readonly labels: Record<string, string>;
  readonly samples: { value: number; timestamp: number; startTimestamp: number }[];
  readonly histograms: {
    countInt: number;
    sum: number;
    schema: number;
    zeroThreshold: number;
    zeroCountInt: number;
    positiveSpans: { offset: number; length: number }[];
    positiveDeltas: number[];
    negativeSpans: { offset: number; length: number }[];
    negativeDeltas: number[];
    timestamp: number;
    startTimestamp: number;
  }[];
  readonly exemplars: { labels: Record<string, string>; value: number; timestamp: number }[];
  readonly metadata: { type: number; help: string; unit: string };
  readonly createdTimestamp: number;
  /** The label names in their wire order. */
  readonly labelOrder: string[];
}

export interface V2Received {
  readonly headers: Record<string, string | string[] | undefined>;
  readonly symbols: string[];
  readonly series: V2Series[];
}

export interface RemoteWriteV2Receiver {
  readonly url: string;
  /** The 2.0 requests taken, decoded. */
  readonly v2: V2Received[];
  /** The 1.0 requests taken, as their snappy-decompressed bodies. */
  readonly v1: Buffer[];
  stop(): Promise<void>;
}

export interface ReceiverOptions {
  /** Answer 2.0 requests with 415, as a 1.0-only receiver of the spec does. */
  readonly refuseV2?: boolean;
}

/**
 * A remote write receiver as the 2.0 spec describes one: it tells the version by `Content-Type`
 * (`application/x-protobuf;proto=io.prometheus.write.v2.Request`, or `application/x-protobuf` alone for 1.0),
 * answers 415 to a message it does not take, decodes 2.0 requests with {@link V2Request}, resolves every
 * reference against the symbols (a reference out of range is a 400), and answers 204 with the
 * `X-Prometheus-Remote-Write-{Samples,Histograms,Exemplars}-Written` headers.
 */
export async function startRemoteWriteV2Receiver(options: ReceiverOptions = {}): Promise<RemoteWriteV2Receiver> {
  const v2: V2Received[] = [];
  const v1: Buffer[] = [];
  const server = createServer(async (req, res) => {
    const parts: Buffer[] = [];
    for await (const part of req) parts.push(part as Buffer);
    const body = Buffer.from(uncompress(Buffer.concat(parts)));
    const type = req.headers['content-type'] ?? '';
    if (type === 'application/x-protobuf') {
      v1.push(body);
      return res.writeHead(204).end();
    }
    if (type !== 'application/x-protobuf;proto=io.prometheus.write.v2.Request' || options.refuseV2)
      return res.writeHead(415).end(`unsupported content type ${type}`);
    let received: V2Received;
    try {
      received = { headers: req.headers, ...resolved(V2Request.decode(body)) };
    } catch (error) {
      return res.writeHead(400).end(String(error));
    }
    v2.push(received);
    const count = (pick: (s: V2Series) => unknown[]) => String(received.series.reduce((n, s) => n + pick(s).length, 0));
    res
      .writeHead(204, {
        'X-Prometheus-Remote-Write-Samples-Written': count((s) => s.samples),
        'X-Prometheus-Remote-Write-Histograms-Written': count((s) => s.histograms),
        'X-Prometheus-Remote-Write-Exemplars-Written': count((s) => s.exemplars),
      })
      .end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/api/v1/write`,
    v2,
    v1,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A decoded request with its references resolved; throws on a reference out of range or an odd label list. */
function resolved(message: protobuf.Message): { symbols: string[]; series: V2Series[] } {
  const request = V2Request.toObject(message, { longs: Number, arrays: true, defaults: true, enums: Number }) as {
    symbols: string[];
    timeseries: Record<string, unknown>[];
  };
  const { symbols } = request;
  if (symbols[0] !== '') throw new Error('symbols[0] must be the empty string');
  const symbol = (ref: number) => {
    if (ref >= symbols.length) throw new Error(`reference ${ref} past the ${symbols.length} symbols`);
    return symbols[ref]!;
  };
  const labels = (refs: number[]) => {
    if (refs.length % 2) throw new Error('an odd number of label references');
    const pairs: [string, string][] = [];
    for (let i = 0; i < refs.length; i += 2) pairs.push([symbol(refs[i]!), symbol(refs[i + 1]!)]);
    return pairs;
  };
  const series = request.timeseries.map((ts) => {
    const pairs = labels(ts.labelsRefs as number[]);
    // An absent metadata message is all defaults: no type, help and unit the empty string.
    const metadata = (ts.metadata ?? { type: 0, helpRef: 0, unitRef: 0 }) as {
      type: number;
      helpRef: number;
      unitRef: number;
    };
    return {
      labels: Object.fromEntries(pairs),
      labelOrder: pairs.map(([name]) => name),
      samples: ts.samples,
      histograms: ts.histograms,
      exemplars: (ts.exemplars as { labelsRefs: number[]; value: number; timestamp: number }[]).map((e) => ({
        labels: Object.fromEntries(labels(e.labelsRefs)),
        value: e.value,
        timestamp: e.timestamp,
      })),
      metadata: { type: metadata.type, help: symbol(metadata.helpRef), unit: symbol(metadata.unitRef) },
      createdTimestamp: ts.createdTimestamp,
    } as V2Series;
  });
  return { symbols, series };
}
