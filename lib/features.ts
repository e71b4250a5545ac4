/**
 * Build features (spec: `remote-write`, `otlp`, `kafka`): transports that need heavy packages.
 * Those packages are `optionalDependencies`, loaded only when a kind needs them, so an install
 * with `--omit=optional` lacks them. A sink or encoder kind that needs one declares it
 * (lib/sinks/kinds, lib/encoders/kinds); where the packages are missing, referencing the kind is
 * refused up front, with the feature's name and what to install, rather than failing later.
 */
import { createRequire } from 'node:module';

/** The optional packages each feature loads. */
export const FEATURE_PACKAGES = {
  'remote-write': ['protobufjs', 'snappy'],
  otlp: ['protobufjs', '@grpc/grpc-js'],
  kafka: ['kafkajs'],
  /** svc-server's protobuf scrape (lib/protocols/metric-family.ts); without it a scrape answers text. */
  'protobuf-exposition': ['protobufjs'],
  /** `svc plot --png` (lib/cli/commands/plot.ts): resvg renders the SVG of the charts. */
  png: ['@resvg/resvg-js'],
} as const;

export type Feature = keyof typeof FEATURE_PACKAGES;

const require = createRequire(import.meta.url);
const missing = new Map<Feature, readonly string[]>();

/** The packages of `feature` that this installation cannot load (checked once). */
function missingPackages(feature: Feature): readonly string[] {
  let found = missing.get(feature);
  if (!found) {
    found = FEATURE_PACKAGES[feature].filter((name) => !resolves(name));
    missing.set(feature, found);
  }
  return found;
}

function resolves(name: string): boolean {
  try {
    require.resolve(name);
    return true;
  } catch {
    return false;
  }
}

/** Why a kind that needs `feature` cannot run here (its packages are not installed), or undefined when it can. */
export function featureRefusal(feature: Feature | undefined): string | undefined {
  if (!feature) return undefined;
  const absent = missingPackages(feature);
  if (!absent.length) return undefined;
  return `needs the build feature "${feature}", whose packages this installation lacks (${absent.join(', ')}; an install with --omit=optional leaves them out): run npm install ${absent.join(' ')}`;
}

/** An optional package of a feature, loaded on first use (validation refused the kind when it is missing). */
export function featurePackage<T>(feature: Feature, name: (typeof FEATURE_PACKAGES)[Feature][number]): T {
  if (!(FEATURE_PACKAGES[feature] as readonly string[]).includes(name))
    throw new Error(`${name} is not a package of the build feature "${feature}"`);
  return require(name) as T;
}
