import { expect } from 'chai';
import { buildRenderer, renderChart, type Manifest } from '../support/chart-render/index.js';
import { kubernetes128Problems } from '../support/kubernetes-1.28.js';

/**
 * Every manifest the chart renders, in each of its modes, validated against the Kubernetes API
 * (docs/reliability.md, "The chart against Kubernetes"): against the schemas of kubernetes-models 4.4
 * (Kubernetes 1.27.1) and 5.x (Kubernetes 1.36.0, the newest it ships), which check types, enums and required
 * fields but, like the OpenAPI documents they come from, let unknown fields through; and type-checked against
 * the models of @kubernetes/client-node 0.20.0 (Kubernetes 1.28), which check names, types and required fields
 * (spec/support/kubernetes-1.28.ts). The ServiceMonitor, a custom resource, is validated in each against the
 * prometheus-operator CRD schema of @kubernetes-models/prometheus-operator.
 */

/** A model class of kubernetes-models: validate() throws, listing every problem, when the object does not fit. */
type ModelClass = new (data: object) => { validate(): void };

/** The problems of objects of the core API, by the Kubernetes version they are checked against. */
const KUBERNETES: Record<string, (objects: readonly Manifest[]) => string[] | Promise<string[]>> = {
  '1.27.1': (objects) => modelProblems('kubernetes-models-v1.27', objects),
  '1.28': kubernetes128Problems,
  '1.36.0': (objects) => modelProblems('kubernetes-models', objects),
};
const PROMETHEUS_OPERATOR = '@kubernetes-models/prometheus-operator';

/** The problems of each manifest in Kubernetes `version`; a custom resource's against its CRD schema. */
async function problems(version: string, objects: readonly Manifest[]): Promise<string[]> {
  const custom = (object: Manifest) => object.apiVersion.startsWith('monitoring.coreos.com/');
  return [
    ...(await KUBERNETES[version]!(objects.filter((object) => !custom(object)))),
    ...(await modelProblems(PROMETHEUS_OPERATOR, objects.filter(custom))),
  ];
}

/** The model of a manifest's apiVersion and kind in `pkg`: `apps/v1` Deployment → `<pkg>/apps/v1/Deployment`. */
async function modelOf(pkg: string, { apiVersion, kind }: Manifest): Promise<ModelClass> {
  const module = (await import(`${pkg}/${apiVersion}/${kind}`).catch(() => {
    throw new Error(`${pkg}: no schema for ${apiVersion} ${kind}`);
  })) as Record<string, ModelClass>;
  return module[kind]!;
}

/** The problems of each manifest against the schemas of kubernetes-models package `pkg`: `Kind name: message`. */
async function modelProblems(pkg: string, objects: readonly Manifest[]): Promise<string[]> {
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
    // CPU above 100 % of the request.
    autoscaling: { enabled: true, targetCPUUtilizationPercentage: 150, targetMemoryUtilizationPercentage: 70 },
    podDisruptionBudget: { enabled: true },
  },
  ingress: {
    ingress: {
      enabled: true,
      className: 'nginx',
      annotations: { 'nginx.ingress.kubernetes.io/proxy-body-size': '1m' },
      // A named host, and a rule for any host.
      hosts: [
        { host: 'svc.local', paths: [{ path: '/', pathType: 'Prefix' }] },
        { host: '', paths: [{ path: '/', pathType: 'Prefix' }] },
      ],
      tls: [{ secretName: 'svc-tls', hosts: ['svc.local'] }],
    },
  },
  'service monitor': {
    serviceMonitor: { enabled: true, path: '/scenarios/metrics', additionalLabels: { release: 'prometheus' } },
    server: {
      apiKey: { existingSecret: 'svc-api-key' },
      extraEnv: [
        { name: 'SVC_ENV_KAFKA_PASSWORD', valueFrom: { secretKeyRef: { name: 'kafka', key: 'password' } } },
        { name: 'SVC_KEEP_ALIVE_TIMEOUT', value: '65000' },
      ],
    },
  },
  'state volume': {
    server: { state: { enabled: true, storageClassName: 'fast' }, fileRoot: { enabled: true } },
    podDisruptionBudget: { enabled: true, maxUnavailable: 1 },
  },
  'state volume, shard mode': { shard: { enabled: true }, replicaCount: 2, server: { state: { enabled: true } } },
  'state volume on an existing claim': { server: { state: { enabled: true, existingClaim: 'mine' } } },
  // Valid names that a YAML parser reads as a number or a boolean unless the chart quotes them.
  'names that read as numbers or booleans': {
    server: { apiKey: { existingSecret: '0123', secretKey: '2024' }, state: { enabled: true, existingClaim: '0042' } },
    serviceMonitor: { enabled: true },
    ingress: { enabled: true, className: 'true', tls: [{ secretName: '443', hosts: ['svc.local'] }] },
  },
};

describe('Helm chart against the Kubernetes API schemas', function () {
  this.timeout(120_000);
  before(() => buildRenderer());

  for (const [mode, values] of Object.entries(MODES)) {
    for (const version of Object.keys(KUBERNETES)) {
      it(`${mode}: every manifest is valid in Kubernetes ${version}`, async () => {
        const rendered = await renderChart(values);
        expect(rendered.objects.length).to.be.greaterThan(0);
        expect(await problems(version, rendered.objects)).to.deep.equal([]);
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
    for (const version of ['1.27.1', '1.36.0']) {
      const [found] = await problems(version, [broken]);
      expect(found).to.include('data/spec/replicas must be integer');
      expect(found).to.include('data/spec must have required property selector');
      expect(found).to.include(
        'data/spec/template/spec/containers/0/ports/0/protocol must be equal to one of the allowed values',
      );
    }
    const monitor = (await renderChart(MODES['service monitor']!)).one('ServiceMonitor') as Manifest & { spec: any };
    monitor.spec.endpoints[0].interval = 30;
    expect((await problems('1.36.0', [monitor]))[0]).to.include('data/spec/endpoints/0/interval must be string');
  });

  it('catches in Kubernetes 1.28 a wrong type, a missing field and an unknown field, at any depth', async () => {
    const deployment = (await renderChart()).one('Deployment');
    const broken = (change: (spec: any) => void) => {
      const copy = structuredClone(deployment) as Manifest & { spec: any };
      change(copy.spec);
      return copy;
    };
    // Where one object has several problems the compiler may report only one: each object here has one.
    const objects = [
      broken((spec) => (spec.template.spec.containers[0].ports[0].containerPort = '8080')),
      broken((spec) => delete spec.selector),
      broken((spec) => delete spec.template.spec.containers[0].name),
      broken((spec) => (spec.replica = 2)),
      broken((spec) => (spec.template.spec.containers[0].ports[0].portocol = 'TCP')),
    ];
    expect(await problems('1.28', objects)).to.deep.equal([
      `Deployment demo-svc: spec.template.spec.containers[0].ports[0].containerPort: Type 'string' is not assignable to type 'number'.`,
      `Deployment demo-svc: spec: Property 'selector' is missing but required in type 'V1DeploymentSpec'.`,
      `Deployment demo-svc: spec.template.spec.containers[0]: Property 'name' is missing but required in type 'V1Container'.`,
      `Deployment demo-svc: spec.replica: Object literal may only specify known properties, and 'replica' does not exist in type 'V1DeploymentSpec'.`,
      `Deployment demo-svc: spec.template.spec.containers[0].ports[0].portocol: Object literal may only specify known properties, and 'portocol' does not exist in type 'V1ContainerPort'.`,
    ]);
  });
});
