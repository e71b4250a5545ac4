import { expect } from 'chai';
import { buildRenderer, renderChart, type Manifest } from '../support/chart-render/index.js';

/**
 * Every manifest the chart renders, in each of its modes, validated against the Kubernetes API schemas
 * (docs/reliability.md, "The chart against Kubernetes"): those of kubernetes-models 4.4 (Kubernetes 1.27.1,
 * the last release before 1.28: no npm package ships the 1.28 schemas) and 5.x (Kubernetes 1.36.0, the
 * newest it ships); the ServiceMonitor against the prometheus-operator CRD schema of
 * @kubernetes-models/prometheus-operator. The schemas check types, enums and required fields; like the
 * OpenAPI documents they come from, they let unknown fields through.
 */

/** A model class of kubernetes-models: validate() throws, listing every problem, when the object does not fit. */
type ModelClass = new (data: object) => { validate(): void };

/** The schema packages, by the API version they describe. */
const KUBERNETES = { '1.27.1': 'kubernetes-models-v1.27', '1.36.0': 'kubernetes-models' } as const;
const PROMETHEUS_OPERATOR = '@kubernetes-models/prometheus-operator';

/** The model of a manifest's apiVersion and kind in `pkg`: `apps/v1` Deployment → `<pkg>/apps/v1/Deployment`. */
async function modelOf(pkg: string, { apiVersion, kind }: Manifest): Promise<ModelClass> {
  const path = apiVersion.startsWith('monitoring.coreos.com/')
    ? `${PROMETHEUS_OPERATOR}/${apiVersion}/${kind}`
    : `${pkg}/${apiVersion}/${kind}`;
  const module = (await import(path).catch(() => {
    throw new Error(`${pkg}: no schema for ${apiVersion} ${kind}`);
  })) as Record<string, ModelClass>;
  return module[kind]!;
}

/** The problems of each manifest against `pkg`'s schemas: `Kind name: message`. */
async function problems(pkg: string, objects: readonly Manifest[]): Promise<string[]> {
  const found: string[] = [];
  for (const object of objects) {
    const Model = await modelOf(pkg, object);
    try {
      new Model(object).validate();
    } catch (error) {
      found.push(`${object.kind} ${object.metadata.name}: ${(error as Error).message}`);
    }
  }
  return found;
}

const SCENARIOS = {
  'checkout.yaml': {
    version: 2,
    kind: 'runnable',
    name: 'checkout',
    scenarios: [{ signal_type: 'metrics', name: 'up', rate: 1, generator: { type: 'constant', value: 1 } }],
  },
};

/** The chart's modes: each renders a different set of objects, or the same ones differently. */
const MODES: Record<string, object> = {
  'default values': {},
  'shard mode': {
    shard: { enabled: true },
    replicaCount: 3,
    scenarios: SCENARIOS,
    server: { autostart: ['checkout'] },
  },
  autoscaling: {
    autoscaling: { enabled: true, targetMemoryUtilizationPercentage: 70 },
    podDisruptionBudget: { enabled: true },
  },
  ingress: {
    ingress: {
      enabled: true,
      className: 'nginx',
      annotations: { 'nginx.ingress.kubernetes.io/proxy-body-size': '1m' },
      tls: [{ secretName: 'svc-tls', hosts: ['svc.local'] }],
    },
  },
  'service monitor': {
    serviceMonitor: { enabled: true, path: '/scenarios/metrics', additionalLabels: { release: 'prometheus' } },
    server: { apiKey: { existingSecret: 'svc-api-key' } },
  },
  'state volume': {
    server: { state: { enabled: true, storageClassName: 'fast' }, fileRoot: { enabled: true } },
    podDisruptionBudget: { enabled: true, maxUnavailable: 1 },
  },
  'state volume, shard mode': { shard: { enabled: true }, replicaCount: 2, server: { state: { enabled: true } } },
  'state volume on an existing claim': { server: { state: { enabled: true, existingClaim: 'mine' } } },
};

describe('Helm chart against the Kubernetes API schemas', function () {
  this.timeout(120_000);
  before(() => buildRenderer());

  for (const [mode, values] of Object.entries(MODES)) {
    for (const [version, pkg] of Object.entries(KUBERNETES)) {
      it(`${mode}: every manifest is valid in Kubernetes ${version}`, async () => {
        const rendered = await renderChart(values);
        expect(rendered.objects.length).to.be.greaterThan(0);
        expect(await problems(pkg, rendered.objects)).to.deep.equal([]);
      });
    }
  }

  it('renders every kind the chart has in one of the modes above, so none goes unchecked', async () => {
    const kinds = new Set<string>();
    for (const values of Object.values(MODES)) for (const kind of (await renderChart(values)).kinds()) kinds.add(kind);
    expect([...kinds].sort()).to.deep.equal([
      'ConfigMap',
      'Deployment',
      'HorizontalPodAutoscaler',
      'Ingress',
      'PersistentVolumeClaim',
      'PodDisruptionBudget',
      'Service',
      'ServiceMonitor',
      'StatefulSet',
    ]);
  });

  it('catches what the API server would refuse: a wrong type, a missing field, an unknown enum value', async () => {
    const deployment = (await renderChart()).one('Deployment');
    const broken = structuredClone(deployment) as Manifest & { spec: any };
    broken.spec.replicas = 'one';
    delete broken.spec.selector;
    broken.spec.template.spec.containers[0].ports[0].protocol = 'ICMP';
    for (const pkg of Object.values(KUBERNETES)) {
      const [found] = await problems(pkg, [broken]);
      expect(found).to.include('data/spec/replicas must be integer');
      expect(found).to.include('data/spec must have required property selector');
      expect(found).to.include(
        'data/spec/template/spec/containers/0/ports/0/protocol must be equal to one of the allowed values',
      );
    }
    const monitor = (await renderChart(MODES['service monitor']!)).one('ServiceMonitor') as Manifest & { spec: any };
    monitor.spec.endpoints[0].interval = 30;
    expect((await problems(KUBERNETES['1.36.0'], [monitor]))[0]).to.include(
      'data/spec/endpoints/0/interval must be string',
    );
  });
});
