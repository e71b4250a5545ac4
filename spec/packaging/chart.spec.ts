import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { Catalog } from '../../lib/catalog/index.js';
import { buildRenderer, renderChart, type Manifest } from '../support/chart-render/index.js';
import { schemaErrors } from '../support/json-schema.js';
import { testServer } from '../support/server.js';
import { directory } from '../support/directories.js';

/**
 * chart/ rendered by Go's text/template and sprig, as Helm renders it (spec/support/chart-render):
 * every document parsed as YAML, then checked against the spec's "Container packaging" table.
 * Not covered here: Helm's own semantics beyond the functions the renderer implements, and a
 * real cluster (docs/deploy.md).
 */

const chartFile = (name: string) => readFileSync(new URL(`../../chart/${name}`, import.meta.url), 'utf8');
const CHART = parse(chartFile('Chart.yaml')) as {
  apiVersion: string;
  name: string;
  version: string;
  appVersion: string;
};
const VALUES = parse(chartFile('values.yaml')) as Record<string, unknown>;
const SCHEMA = JSON.parse(chartFile('values.schema.json')) as Record<string, unknown>;
const PACKAGE = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

const container = (workload: Manifest) => workload.spec.template.spec.containers[0];
const envOf = (workload: Manifest) =>
  Object.fromEntries(
    (container(workload).env as { name: string; value?: string; valueFrom?: unknown }[]).map((e) => [
      e.name,
      e.value ?? e.valueFrom,
    ]),
  );

/** Whether a Kubernetes label selector (matchLabels, matchExpressions with In, NotIn, Exists, DoesNotExist) selects `labels`. */
function selects(
  selector: {
    matchLabels?: Record<string, string>;
    matchExpressions?: { key: string; operator: string; values?: string[] }[];
  },
  labels: Record<string, string>,
): boolean {
  const matched = Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
  return (
    matched &&
    (selector.matchExpressions ?? []).every(({ key, operator, values = [] }) => {
      const has = Object.hasOwn(labels, key);
      if (operator === 'In') return has && values.includes(labels[key]!);
      if (operator === 'NotIn') return !has || !values.includes(labels[key]!);
      if (operator === 'Exists') return has;
      if (operator === 'DoesNotExist') return !has;
      throw new Error(`unknown selector operator ${operator}`);
    })
  );
}

const SCENARIO = `version: 2
kind: runnable
name: checkout
scenarios:
  - signal_type: metrics
    name: checkout_requests_total
    rate: 5
    generator: { type: step, start: 0, step_size: 1 }
    dynamic_labels: [{ key: pod, cardinality: 4 }]
`;

describe('Helm chart (chart/)', function () {
  // The first render builds the renderer: Go compiles sprig once per test process.
  this.timeout(120_000);
  before(() => buildRenderer());

  describe('Chart.yaml, values.yaml and values.schema.json', () => {
    it("is a v2 chart whose appVersion is svc's version (the default image tag)", () => {
      expect(CHART).to.include({ apiVersion: 'v2', name: 'svc', appVersion: PACKAGE.version });
    });

    it('has exactly the defaults of the spec table, plus the server settings, and the schema accepts them', () => {
      expect(VALUES).to.deep.include({
        image: { repository: 'svc', tag: '', pullPolicy: 'IfNotPresent' },
        imagePullSecrets: [],
        replicaCount: 1,
        service: { type: 'ClusterIP', port: 8080 },
        resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '256Mi' } },
        podSecurityContext: {},
        securityContext: {},
        nodeSelector: {},
        tolerations: [],
        affinity: {},
        // targetMemoryUtilizationPercentage: unset.
        autoscaling: { enabled: false, minReplicas: 1, maxReplicas: 5, targetCPUUtilizationPercentage: 80 },
        // maxUnavailable: unset.
        podDisruptionBudget: { enabled: false, minAvailable: 1 },
        ingress: {
          enabled: false,
          className: '',
          annotations: {},
          hosts: [{ host: 'svc.local', paths: [{ path: '/', pathType: 'Prefix' }] }],
          tls: [],
        },
        serviceMonitor: {
          enabled: false,
          interval: '30s',
          scrapeTimeout: '10s',
          path: '/health',
          additionalLabels: {},
        },
        scenarios: {},
        shard: { enabled: false },
      });
      expect(VALUES.server).to.deep.equal({
        port: 8080,
        bind: '0.0.0.0',
        logLevel: 'info',
        apiKey: { existingSecret: '', secretKey: 'api-key' },
        fileRoot: { enabled: false, path: '/var/lib/svc', volume: {} },
        state: {
          enabled: false,
          path: '/var/lib/svc-state',
          size: '1Gi',
          storageClassName: '',
          accessModes: ['ReadWriteOnce'],
          existingClaim: '',
        },
        heapMiB: 0,
        maxEntries: 4000,
        autostart: [],
        extraEnv: [],
      });
      expect(schemaErrors(SCHEMA, VALUES)).to.deep.equal([]);
    });

    it('the schema names the value that is wrong', () => {
      const wrong = (path: string[], value: unknown) => {
        const copy = structuredClone(VALUES) as Record<string, any>;
        let node = copy;
        for (const key of path.slice(0, -1)) node = node[key];
        node[path.at(-1)!] = value;
        return schemaErrors(SCHEMA, copy);
      };
      expect(wrong(['service', 'port'], '8080')).to.deep.equal(['/service/port: must be integer']);
      expect(wrong(['server', 'port'], 70000)).to.deep.equal(['/server/port: must be <= 65535']);
      expect(wrong(['image', 'pullPolicy'], 'Sometimes')).to.deep.equal([
        '/image/pullPolicy: must be equal to one of the allowed values',
      ]);
      expect(wrong(['scenarios'], { 'bad name.txt': 'x' })).to.deep.equal([
        '/scenarios: must match pattern "^[-_a-zA-Z0-9][-._a-zA-Z0-9]*\\.(yaml|yml|json)$" ("bad name.txt")',
        '/scenarios: property name must be valid ("bad name.txt")',
      ]);
      expect(wrong(['replicaCount'], 0)).to.deep.equal(['/replicaCount: must be >= 1']);
      expect(wrong(['server', 'heapMiB'], 16)).to.include('/server/heapMiB: must match a schema in anyOf');
      expect(wrong(['server', 'heapMiB'], 1e6)).to.include('/server/heapMiB: must match a schema in anyOf');
      expect(wrong(['server', 'maxEntries'], 0)).to.deep.equal(['/server/maxEntries: must be >= 1']);
      expect(wrong(['server', 'maxEntries'], 2e6)).to.deep.equal(['/server/maxEntries: must be <= 1000000']);
      // A misspelt valueFrom would otherwise render a variable without a value, which Kubernetes sets to "".
      expect(
        wrong(
          ['server', 'extraEnv'],
          [{ name: 'KAFKA_PASSWORD', valuefrom: { secretKeyRef: { name: 'k', key: 'p' } } }],
        ),
      ).to.deep.equal(['/server/extraEnv/0: must NOT have additional properties ("valuefrom")']);
      // A misspelt secretName would leave the Ingress on the controller's default certificate.
      expect(wrong(['ingress', 'tls'], [{ hosts: ['svc.local'], secretname: 'svc-tls' }])).to.deep.equal([
        '/ingress/tls/0: must NOT have additional properties ("secretname")',
      ]);
      // Kubernetes refuses an Ingress with neither rules nor a default backend; off, no Ingress needs them.
      const ingress = VALUES.ingress as object;
      expect(wrong(['ingress'], { ...ingress, enabled: false, hosts: [] })).to.deep.equal([]);
      expect(wrong(['ingress'], { ...ingress, enabled: true, hosts: [] })).to.deep.equal([
        '/ingress/hosts: must NOT have fewer than 1 items',
        '/ingress: must match "then" schema',
      ]);
      // A misspelt limits would be dropped by Kubernetes: a container without a memory limit.
      expect(wrong(['resources'], { requests: { cpu: '100m' }, limit: { memory: '256Mi' } })).to.deep.equal([
        '/resources: must NOT have additional properties ("limit")',
      ]);
      // Utilization is of the requests: a pod may use 150 % of its CPU request, as Kubernetes allows.
      expect(wrong(['autoscaling', 'targetCPUUtilizationPercentage'], 150)).to.deep.equal([]);
      expect(wrong(['autoscaling', 'targetCPUUtilizationPercentage'], 0)).to.deep.equal([
        '/autoscaling/targetCPUUtilizationPercentage: must be >= 1',
      ]);
      // An empty instancePath is the document itself.
      expect(wrong(['servicemonitor'], {})).to.deep.equal([': must NOT have additional properties ("servicemonitor")']);
    });
  });

  describe('with the default values', () => {
    it('renders a Deployment and a Service only, every document valid YAML', async () => {
      const rendered = await renderChart();
      expect(rendered.kinds()).to.deep.equal(['Deployment', 'Service']);
      expect(rendered.objects.map((o) => o.metadata.name)).to.deep.equal(['demo-svc', 'demo-svc']);
    });

    it('runs svc-server on 0.0.0.0:8080 from the image tagged with the appVersion, with the spec resources and empty security contexts', async () => {
      const deployment = (await renderChart()).one('Deployment');
      expect(deployment.spec.replicas).to.equal(1);
      const pod = deployment.spec.template.spec;
      expect(pod.securityContext).to.deep.equal({});
      expect(pod).not.to.have.any.keys('imagePullSecrets', 'volumes', 'nodeSelector', 'tolerations', 'affinity');
      const svc = container(deployment);
      expect(svc).to.deep.include({
        image: `svc:${CHART.appVersion}`,
        imagePullPolicy: 'IfNotPresent',
        command: ['svc-server'],
        args: ['--port', '8080', '--bind', '0.0.0.0', '--max-entries', '4000'],
        ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
        resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '256Mi' } },
        securityContext: {},
      });
      expect(envOf(deployment)).to.deep.equal({ SVC_LOG_LEVEL: 'info' });
    });

    it('probes GET /health on port http: liveness 5/10/3/3, readiness 2/5/3/3 on /health?ready', async () => {
      const svc = container((await renderChart()).one('Deployment'));
      expect(svc.livenessProbe).to.deep.equal({
        httpGet: { path: '/health', port: 'http' },
        initialDelaySeconds: 5,
        periodSeconds: 10,
        timeoutSeconds: 3,
        failureThreshold: 3,
      });
      expect(svc.readinessProbe).to.deep.equal({
        httpGet: { path: '/health?ready', port: 'http' },
        initialDelaySeconds: 2,
        periodSeconds: 5,
        timeoutSeconds: 3,
        failureThreshold: 3,
      });
    });

    it('the probe paths get what the probes expect from svc-server: both 200, readiness 503 once it drains', async () => {
      const svc = container((await renderChart()).one('Deployment'));
      const server = testServer({ apiKey: 'probes-send-no-key' });
      const status = async (path: string) => (await server.request({ method: 'GET', url: path })).statusCode;
      expect([
        await status(svc.livenessProbe.httpGet.path),
        await status(svc.readinessProbe.httpGet.path),
      ]).to.deep.equal([200, 200]);
      await server.registry.stopAll();
      expect([
        await status(svc.livenessProbe.httpGet.path),
        await status(svc.readinessProbe.httpGet.path),
      ]).to.deep.equal([200, 503]);
    });

    it('exposes a ClusterIP Service on 8080 as the named port http, selecting the pods', async () => {
      const rendered = await renderChart();
      const service = rendered.one('Service');
      expect(service.spec).to.deep.include({
        type: 'ClusterIP',
        ports: [{ port: 8080, targetPort: 'http', protocol: 'TCP', name: 'http' }],
      });
      expect(rendered.one('Deployment').spec.template.metadata.labels).to.deep.include(service.spec.selector);
      expect(rendered.one('Deployment').spec.selector.matchLabels).to.deep.equal(service.spec.selector);
    });

    it('NOTES.txt gives the in-cluster address <service>.<namespace>.svc.cluster.local:<port> and warns about the missing API key', async () => {
      const { notes } = await renderChart({ service: { port: 9000 } }, { release: 'load', namespace: 'perf' });
      expect(notes).to.include('http://load-svc.perf.svc.cluster.local:9000');
      expect(notes).to.match(/WARNING: no API key/);
      expect(notes).to.match(/File sinks of requests are refused/);
    });
  });

  describe('image and server values', () => {
    it('takes image.tag, pullPolicy and imagePullSecrets, and scheduling values', async () => {
      const deployment = (
        await renderChart({
          image: { repository: 'registry.example/svc', tag: '9.9.9', pullPolicy: 'Always' },
          imagePullSecrets: [{ name: 'regcred' }],
          nodeSelector: { 'kubernetes.io/arch': 'amd64' },
          tolerations: [{ key: 'load', operator: 'Exists', effect: 'NoSchedule' }],
          affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [] } },
          podSecurityContext: { runAsNonRoot: true, runAsUser: 1000 },
          securityContext: { readOnlyRootFilesystem: true, allowPrivilegeEscalation: false },
        })
      ).one('Deployment');
      const pod = deployment.spec.template.spec;
      expect(container(deployment)).to.deep.include({
        image: 'registry.example/svc:9.9.9',
        imagePullPolicy: 'Always',
        securityContext: { readOnlyRootFilesystem: true, allowPrivilegeEscalation: false },
      });
      expect(pod).to.deep.include({
        imagePullSecrets: [{ name: 'regcred' }],
        nodeSelector: { 'kubernetes.io/arch': 'amd64' },
        tolerations: [{ key: 'load', operator: 'Exists', effect: 'NoSchedule' }],
        affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [] } },
        securityContext: { runAsNonRoot: true, runAsUser: 1000 },
      });
    });

    it('reads the API key from an existing Secret, never from values, and the NOTES warning goes', async () => {
      const rendered = await renderChart({
        server: { apiKey: { existingSecret: 'svc-key', secretKey: 'token' } },
        serviceMonitor: { enabled: true },
      });
      expect(envOf(rendered.one('Deployment')).SVC_API_KEY).to.deep.equal({
        secretKeyRef: { name: 'svc-key', key: 'token' },
      });
      // The scrape resource authenticates with the same Secret.
      expect(rendered.one('ServiceMonitor').spec.endpoints[0].authorization).to.deep.equal({
        type: 'Bearer',
        credentials: { name: 'svc-key', key: 'token' },
      });
      expect(rendered.notes).not.to.match(/WARNING/);
    });

    it('writes names and paths from values as strings, even those YAML would read as numbers, booleans or comments', async () => {
      const rendered = await renderChart({
        server: {
          apiKey: { existingSecret: '0123', secretKey: '2024' },
          fileRoot: { enabled: true, path: '/data #out' },
          state: { enabled: true, path: '/state: kept', existingClaim: '0042' },
        },
        serviceMonitor: { enabled: true, path: '/metrics #1' },
        ingress: {
          enabled: true,
          className: 'true',
          hosts: [{ host: 'svc.local', paths: [{ path: '/a #b', pathType: 'Prefix' }] }],
          tls: [{ secretName: '443', hosts: ['svc.local'] }],
        },
      });
      const deployment = rendered.one('Deployment');
      expect(envOf(deployment).SVC_API_KEY).to.deep.equal({ secretKeyRef: { name: '0123', key: '2024' } });
      expect(container(deployment).volumeMounts).to.deep.equal([
        { name: 'file-root', mountPath: '/data #out' },
        { name: 'state', mountPath: '/state: kept' },
      ]);
      expect(deployment.spec.template.spec.volumes).to.deep.include({
        name: 'state',
        persistentVolumeClaim: { claimName: '0042' },
      });
      const endpoint = rendered.one('ServiceMonitor').spec.endpoints[0];
      expect(endpoint.path).to.equal('/metrics #1');
      expect(endpoint.authorization.credentials).to.deep.equal({ name: '0123', key: '2024' });
      const ingress = rendered.one('Ingress').spec;
      expect(ingress.ingressClassName).to.equal('true');
      expect(ingress.tls[0].secretName).to.equal('443');
      expect(ingress.rules[0].http.paths[0].path).to.equal('/a #b');
    });

    it('refuses a loopback server.bind, which the probes and the Service cannot reach; takes any other address', async () => {
      for (const bind of [
        '127.0.0.1',
        '127.0.0.53',
        'localhost',
        'LOCALHOST',
        'localhost.localdomain',
        '::1',
        '0:0:0:0:0:0:0:1',
        '::ffff:127.0.0.1',
      ]) {
        const failure = await renderChart({ server: { bind } }).then(
          () => 'rendered',
          (error: Error) => error.message,
        );
        expect(failure, bind).to.include(
          `server.bind ${bind} is reachable only from inside the pod: the kubelet's probes and the Service connect to the pod's IP`,
        );
      }
      // Any other address, and names that only start like a loopback one.
      for (const bind of ['0.0.0.0', '::', '10.1.2.3', '127.example.com', 'localhost-1.example.com', '::10']) {
        const deployment = (await renderChart({ server: { bind } })).one('Deployment');
        expect(container(deployment).args.slice(2, 4)).to.deep.equal(['--bind', bind]);
      }
    });

    it('refuses an API key Secret without a key name, naming the value', async () => {
      const failure = await renderChart({ server: { apiKey: { existingSecret: 'svc-key', secretKey: '' } } }).catch(
        (error: Error) => error.message,
      );
      expect(failure).to.match(/server\.apiKey\.secretKey: name the key of the Secret/);
    });

    it('passes the file root, mounting its volume, and the log level', async () => {
      const deployment = (
        await renderChart({
          server: {
            logLevel: 'debug',
            fileRoot: { enabled: true, path: '/data', volume: { persistentVolumeClaim: { claimName: 'svc-data' } } },
          },
        })
      ).one('Deployment');
      const svc = container(deployment);
      expect(svc.args).to.deep.equal([
        '--port',
        '8080',
        '--bind',
        '0.0.0.0',
        '--max-entries',
        '4000',
        '--file-root',
        '/data',
      ]);
      expect(svc.volumeMounts).to.deep.equal([{ name: 'file-root', mountPath: '/data' }]);
      expect(deployment.spec.template.spec.volumes).to.deep.equal([
        { name: 'file-root', persistentVolumeClaim: { claimName: 'svc-data' } },
      ]);
      expect(envOf(deployment).SVC_LOG_LEVEL).to.equal('debug');
      expect(envOf(deployment)).not.to.have.property('NODE_OPTIONS');
      const byDefault = (await renderChart({ server: { fileRoot: { enabled: true } } })).one('Deployment');
      expect(byDefault.spec.template.spec.volumes).to.deep.equal([{ name: 'file-root', emptyDir: {} }]);
      expect(container(byDefault).volumeMounts).to.deep.equal([{ name: 'file-root', mountPath: '/var/lib/svc' }]);
    });

    it('server.heapMiB: the Node heap limit as NODE_OPTIONS, in the Deployment and in shard mode', async () => {
      const deployment = (await renderChart({ server: { heapMiB: 352 } })).one('Deployment');
      expect(envOf(deployment).NODE_OPTIONS).to.equal('--max-old-space-size=352');
      const sharded = (await renderChart({ server: { heapMiB: 352 }, shard: { enabled: true } })).one('StatefulSet');
      expect(envOf(sharded).NODE_OPTIONS).to.equal('--max-old-space-size=352');
    });

    it('server.maxEntries: --max-entries, in the Deployment and in shard mode, a million written out', async () => {
      const deployment = (await renderChart({ server: { maxEntries: 1_000_000 } })).one('Deployment');
      expect(container(deployment).args.slice(-2)).to.deep.equal(['--max-entries', '1000000']);
      const sharded = (await renderChart({ server: { maxEntries: 10_000 }, shard: { enabled: true } })).one(
        'StatefulSet',
      );
      expect(container(sharded).args).to.include.ordered.members([
        '--port',
        '8080',
        '--bind',
        '0.0.0.0',
        '--max-entries',
        '10000',
      ]);
    });

    it("server.extraEnv: more variables after the chart's, a sink password from a Secret for ${NAME}, in both workloads", async () => {
      const extraEnv = [
        { name: 'SVC_ENV_KAFKA_PASSWORD', valueFrom: { secretKeyRef: { name: 'kafka', key: 'password' } } },
        { name: 'SVC_KEEP_ALIVE_TIMEOUT', value: '65000' },
      ];
      expect(schemaErrors(SCHEMA, { ...VALUES, server: { ...(VALUES.server as object), extraEnv } })).to.deep.equal([]);
      for (const values of [{}, { shard: { enabled: true } }]) {
        const rendered = await renderChart({ ...values, server: { extraEnv } });
        const workload = rendered.one(rendered.kinds().includes('StatefulSet') ? 'StatefulSet' : 'Deployment');
        expect(container(workload).env.slice(-2)).to.deep.equal(extraEnv);
        expect(envOf(workload).SVC_LOG_LEVEL).to.equal('info');
      }
    });

    it('server.extraEnv: NODE_OPTIONS for other Node options when server.heapMiB is 0; refused, saying how, when heapMiB sets it', async () => {
      const nodeOptions = { name: 'NODE_OPTIONS', value: '--use-openssl-ca --dns-result-order=ipv4first' };
      const deployment = (await renderChart({ server: { extraEnv: [nodeOptions] } })).one('Deployment');
      expect(container(deployment).env.filter((e: { name: string }) => e.name === 'NODE_OPTIONS')).to.deep.equal([
        nodeOptions,
      ]);
      const failure = await renderChart({ server: { heapMiB: 352, extraEnv: [nodeOptions] } }).catch(
        (error: Error) => error.message,
      );
      expect(failure).to.include(
        "server.extraEnv: NODE_OPTIONS is the chart's to set while server.heapMiB is set: set server.heapMiB to 0 and add --max-old-space-size=N to your NODE_OPTIONS",
      );
    });

    it('server.extraEnv: refuses a variable the chart sets from another value, naming that value', async () => {
      for (const [name, value] of [
        ['SVC_API_KEY', 'server.apiKey.existingSecret'],
        ['SVC_STATE_DIR', 'server.state'],
        ['SVC_MAX_ENTRIES', 'server.maxEntries'],
      ]) {
        const failure = await renderChart({ server: { extraEnv: [{ name, value: 'x' }] } }).catch(
          (error: Error) => error.message,
        );
        expect(failure).to.match(
          new RegExp(`server\\.extraEnv: ${name} is the chart's to set, from ${value.replaceAll('.', '\\.')}`),
        );
      }
    });
  });

  describe('scenarios', () => {
    it('become a ConfigMap mounted read-only at /scenarios and passed as --catalog /scenarios, autostart as --autostart @a,@b', async () => {
      const rendered = await renderChart({
        scenarios: {
          'checkout.yaml': SCENARIO,
          'search.yaml': {
            version: 2,
            kind: 'runnable',
            name: 'search',
            scenarios: [
              { signal_type: 'metrics', name: 'search_up', rate: 1, generator: { type: 'constant', value: 1 } },
            ],
          },
        },
        server: { autostart: ['checkout', '@search'] },
      });
      const configMap = rendered.one('ConfigMap', 'demo-svc-scenarios');
      expect(configMap.data!['checkout.yaml']).to.equal(SCENARIO);
      // A file written as YAML in values arrives as YAML text.
      expect(parse(configMap.data!['search.yaml']!)).to.deep.include({ name: 'search', kind: 'runnable' });
      const deployment = rendered.one('Deployment');
      const svc = container(deployment);
      expect(svc.args).to.deep.equal([
        '--port',
        '8080',
        '--bind',
        '0.0.0.0',
        '--max-entries',
        '4000',
        '--catalog',
        '/scenarios',
        '--autostart',
        '@checkout,@search',
      ]);
      expect(svc.volumeMounts).to.deep.equal([{ name: 'scenarios', mountPath: '/scenarios', readOnly: true }]);
      expect(deployment.spec.template.spec.volumes).to.deep.equal([
        { name: 'scenarios', configMap: { name: 'demo-svc-scenarios' } },
      ]);
      expect(rendered.notes).to.include('Started at boot: @checkout,@search');
    });

    it('the mounted files are a catalog svc-server opens, holding the autostarted scenarios', async () => {
      const rendered = await renderChart({
        scenarios: { 'checkout.yaml': SCENARIO },
        server: { autostart: ['checkout'] },
      });
      const catalog = await Catalog.open(directory(rendered.one('ConfigMap').data!));
      expect(catalog.items.map((item) => `${item.name} ${item.kind}`)).to.deep.equal(['checkout runnable']);
      expect(catalog.scenario('checkout').file.scenarios).to.have.length(1);
    });

    it('go through tpl, so a sink address can name a service of the release', async () => {
      const rendered = await renderChart({
        scenarios: {
          'push.yaml':
            'sink: { type: http_push, url: "http://{{ .Release.Name }}-vm.{{ .Release.Namespace }}:8428/api/v1/import/prometheus" }\n',
        },
      });
      expect(rendered.one('ConfigMap').data!['push.yaml']).to.include('http://demo-vm.telemetry:8428/');
    });

    it('a change of scenarios changes the checksum on the pod template (a rollout); another value does not', async () => {
      const checksum = async (values: object) =>
        (await renderChart(values)).one('Deployment').spec.template.metadata.annotations[
          'checksum/scenarios'
        ] as string;
      const base = await checksum({ scenarios: { 'checkout.yaml': SCENARIO } });
      expect(base).to.match(/^[0-9a-f]{64}$/);
      expect(await checksum({ scenarios: { 'checkout.yaml': SCENARIO.replace('rate: 5', 'rate: 6') } })).not.to.equal(
        base,
      );
      expect(
        await checksum({ scenarios: { 'checkout.yaml': SCENARIO, 'more.yaml': SCENARIO.replace('checkout', 'more') } }),
      ).not.to.equal(base);
      expect(
        await checksum({ scenarios: { 'checkout.yaml': SCENARIO }, resources: { limits: { cpu: '1' } } }),
      ).to.equal(base);
    });

    it('refuses autostart without scenarios, saying what to set', async () => {
      const failure = await renderChart({ server: { autostart: ['checkout'] } }).catch((error: Error) => error.message);
      expect(failure).to.match(/server\.autostart names catalog scenarios: put their files in scenarios/);
    });
  });

  describe('each enabled switch', () => {
    it('autoscaling: an HPA on the Deployment with the CPU target, memory when set, and no replicas on the Deployment', async () => {
      const cpuOnly = await renderChart({ autoscaling: { enabled: true }, replicaCount: 3 });
      expect(cpuOnly.one('Deployment').spec).not.to.have.property('replicas');
      const hpa = cpuOnly.one('HorizontalPodAutoscaler');
      expect(hpa.apiVersion).to.equal('autoscaling/v2');
      expect(hpa.spec).to.deep.equal({
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'demo-svc' },
        minReplicas: 1,
        maxReplicas: 5,
        metrics: [
          { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } },
        ],
      });
      const both = (
        await renderChart({
          autoscaling: { enabled: true, minReplicas: 2, maxReplicas: 9, targetMemoryUtilizationPercentage: 70 },
        })
      ).one('HorizontalPodAutoscaler');
      expect(both.spec).to.deep.include({ minReplicas: 2, maxReplicas: 9 });
      expect(
        both.spec.metrics.map((m: any) => `${m.resource.name} ${m.resource.target.averageUtilization}`),
      ).to.deep.equal(['cpu 80', 'memory 70']);
    });

    it('server.state: --state on a claim the chart makes, Recreate so one pod holds it; refused with more pods', async () => {
      const rendered = await renderChart({ server: { state: { enabled: true, size: '2Gi' } } });
      const deployment = rendered.one('Deployment');
      expect(deployment.spec.strategy).to.deep.equal({ type: 'Recreate' });
      expect(container(deployment).args.join(' ')).to.include('--state /var/lib/svc-state');
      expect(container(deployment).volumeMounts).to.deep.include({ name: 'state', mountPath: '/var/lib/svc-state' });
      expect(deployment.spec.template.spec.volumes).to.deep.include({
        name: 'state',
        persistentVolumeClaim: { claimName: 'demo-svc-state' },
      });
      expect(rendered.one('PersistentVolumeClaim', 'demo-svc-state').spec).to.deep.equal({
        accessModes: ['ReadWriteOnce'],
        resources: { requests: { storage: '2Gi' } },
      });

      const existing = await renderChart({ server: { state: { enabled: true, existingClaim: 'mine' } } });
      expect(existing.kinds()).not.to.include('PersistentVolumeClaim');
      expect(existing.one('Deployment').spec.template.spec.volumes).to.deep.include({
        name: 'state',
        persistentVolumeClaim: { claimName: 'mine' },
      });

      const shards = (
        await renderChart({ shard: { enabled: true }, replicaCount: 2, server: { state: { enabled: true } } })
      ).one('StatefulSet');
      expect(shards.spec.volumeClaimTemplates.map((t: Manifest) => t.metadata.name)).to.deep.equal(['state']);
      expect(shards.spec.template.spec.volumes ?? []).to.deep.equal([]);

      for (const values of [{ replicaCount: 2 }, { autoscaling: { enabled: true } }])
        await renderChart({ ...values, server: { state: { enabled: true } } }).then(
          () => expect.fail('rendered'),
          (error: Error) => expect(error.message).to.include("server.state.enabled keeps one server's scenarios"),
        );
      await renderChart({ shard: { enabled: true }, server: { state: { enabled: true, existingClaim: 'x' } } }).then(
        () => expect.fail('rendered'),
        (error: Error) => expect(error.message).to.include('server.state.existingClaim: in shard mode'),
      );
    });

    it('podDisruptionBudget: minAvailable by default, maxUnavailable instead when set', async () => {
      const min = (await renderChart({ podDisruptionBudget: { enabled: true } })).one('PodDisruptionBudget');
      expect(min.apiVersion).to.equal('policy/v1');
      expect(min.spec).to.deep.equal({
        minAvailable: 1,
        selector: { matchLabels: { 'app.kubernetes.io/name': 'svc', 'app.kubernetes.io/instance': 'demo' } },
      });
      const max = (await renderChart({ podDisruptionBudget: { enabled: true, maxUnavailable: '50%' } })).one(
        'PodDisruptionBudget',
      );
      expect(max.spec).to.have.property('maxUnavailable', '50%');
      expect(max.spec).not.to.have.property('minAvailable');
    });

    it('podDisruptionBudget: NOTES.txt warns when it allows no eviction, so a node drain would wait forever', async () => {
      const warning = async (values: object, budget: object = {}) =>
        /WARNING: the PodDisruptionBudget allows no eviction with (\d+) pod\(s\).*\n.*forever\.\n(.*)/
          .exec((await renderChart({ ...values, podDisruptionBudget: { enabled: true, ...budget } })).notes)
          ?.slice(1);
      const raisePods = (value: string) =>
        `Raise ${value}, lower podDisruptionBudget.minAvailable, or set podDisruptionBudget.maxUnavailable: 1.`;
      const raiseMaxUnavailable = 'Raise podDisruptionBudget.maxUnavailable to 1 (or a percentage above 0%).';
      // The defaults, minAvailable 1 of one pod.
      expect(await warning({})).to.deep.equal(['1', raisePods('replicaCount')]);
      expect(await warning({ autoscaling: { enabled: true } })).to.deep.equal([
        '1',
        raisePods('autoscaling.minReplicas'),
      ]);
      expect(await warning({ replicaCount: 3 }, { minAvailable: '100%' })).to.deep.equal([
        '3',
        raisePods('replicaCount'),
      ]);
      // Kubernetes rounds a percentage up: ceil(50 % of 1) is 1 pod, ceil(60 % of 2) is 2.
      expect(await warning({}, { minAvailable: '50%' })).to.deep.equal(['1', raisePods('replicaCount')]);
      expect(await warning({ replicaCount: 2 }, { minAvailable: '60%' })).to.deep.equal([
        '2',
        raisePods('replicaCount'),
      ]);
      expect(await warning({ autoscaling: { enabled: true, minReplicas: 2 } }, { minAvailable: '51%' })).to.deep.equal([
        '2',
        raisePods('autoscaling.minReplicas'),
      ]);
      // More pods do not help a maxUnavailable of 0.
      for (const maxUnavailable of [0, '0%', '00%'])
        expect(await warning({ replicaCount: 3 }, { maxUnavailable }), String(maxUnavailable)).to.deep.equal([
          '3',
          raiseMaxUnavailable,
        ]);
      for (const [values, budget] of [
        [{ replicaCount: 2 }, {}],
        [{}, { maxUnavailable: 1 }],
        [{}, { maxUnavailable: '1%' }],
        [{ replicaCount: 3 }, { minAvailable: '50%' }],
        [{ replicaCount: 2 }, { minAvailable: '50%' }],
        [{}, { minAvailable: '0%' }],
        [{ autoscaling: { enabled: true, minReplicas: 2 } }, {}],
        [{ shard: { enabled: true }, replicaCount: 4 }, {}],
      ])
        expect(await warning(values!, budget), JSON.stringify([values, budget])).to.equal(undefined);
    });

    it('ingress: className, annotations, hosts with their paths to the port http, and tls', async () => {
      const ingress = (
        await renderChart({
          ingress: {
            enabled: true,
            className: 'nginx',
            annotations: { 'nginx.ingress.kubernetes.io/proxy-body-size': '1m' },
            hosts: [{ host: 'svc.example.com', paths: [{ path: '/', pathType: 'Prefix' }] }],
            tls: [{ hosts: ['svc.example.com'], secretName: 'svc-tls' }],
          },
        })
      ).one('Ingress');
      expect(ingress.metadata.annotations).to.deep.equal({ 'nginx.ingress.kubernetes.io/proxy-body-size': '1m' });
      expect(ingress.spec).to.deep.equal({
        ingressClassName: 'nginx',
        tls: [{ hosts: ['svc.example.com'], secretName: 'svc-tls' }],
        rules: [
          {
            host: 'svc.example.com',
            http: {
              paths: [
                { path: '/', pathType: 'Prefix', backend: { service: { name: 'demo-svc', port: { name: 'http' } } } },
              ],
            },
          },
        ],
      });
      // The default host rule: path / with pathType Prefix.
      expect((await renderChart({ ingress: { enabled: true } })).one('Ingress').spec.rules[0].http.paths[0]).to.include(
        { path: '/', pathType: 'Prefix' },
      );
    });

    it('serviceMonitor: interval, scrapeTimeout, path and additionalLabels, selecting the Service', async () => {
      const rendered = await renderChart({
        serviceMonitor: { enabled: true, path: '/scenarios/metrics', additionalLabels: { release: 'prometheus' } },
      });
      const monitor = rendered.one('ServiceMonitor');
      expect(monitor.apiVersion).to.equal('monitoring.coreos.com/v1');
      expect(monitor.metadata.labels).to.include({ release: 'prometheus' });
      expect(monitor.spec.endpoints).to.deep.equal([
        { port: 'http', path: '/scenarios/metrics', interval: '30s', scrapeTimeout: '10s' },
      ]);
      expect(
        rendered.objects
          .filter((o) => o.kind === 'Service' && selects(monitor.spec.selector, o.metadata.labels!))
          .map((o) => o.metadata.name),
      ).to.deep.equal(['demo-svc']);
    });

    it('serviceMonitor: a scrapeTimeout longer than the interval is refused, naming both (the Prometheus Operator skips such a monitor)', async () => {
      const refusal = (interval: string, scrapeTimeout?: string) =>
        renderChart({ serviceMonitor: { enabled: true, interval, ...(scrapeTimeout && { scrapeTimeout }) } }).then(
          () => undefined,
          (error: Error) => error.message,
        );
      // The default scrapeTimeout, 10s, with a shorter interval.
      expect(await refusal('5s')).to.match(
        /serviceMonitor\.scrapeTimeout 10s is longer than serviceMonitor\.interval 5s: the Prometheus Operator skips/,
      );
      expect(await refusal('1m', '1m1s')).to.include('serviceMonitor.scrapeTimeout 1m1s is longer');
      expect(await refusal('500ms', '1s')).to.include('serviceMonitor.scrapeTimeout 1s is longer');
      // Leading zeros are decimal, as Prometheus reads them: 090s is 90 s, not an invalid octal number.
      expect(await refusal('1m', '090s')).to.include('serviceMonitor.scrapeTimeout 090s is longer');
      for (const [interval, scrapeTimeout] of [
        ['1m', '1m'],
        ['1m', '59s'],
        ['2m', '90s'],
        ['1h', '59m59s999ms'],
        ['1s', '999ms'],
        ['010s', '9s'],
      ])
        expect(await refusal(interval!, scrapeTimeout), `${interval} ${scrapeTimeout}`).to.equal(undefined);
      // Off, the values are not used.
      await renderChart({ serviceMonitor: { enabled: false, interval: '5s' } });
    });

    it('serviceMonitor in shard mode selects the main Service only, not the headless one: each pod is scraped once', async () => {
      const rendered = await renderChart({
        shard: { enabled: true },
        replicaCount: 2,
        serviceMonitor: { enabled: true },
      });
      const services = rendered.objects.filter((o) => o.kind === 'Service');
      expect(services).to.have.length(2);
      const selector = rendered.one('ServiceMonitor').spec.selector;
      expect(services.filter((o) => selects(selector, o.metadata.labels!)).map((o) => o.metadata.name)).to.deep.equal([
        'demo-svc',
      ]);
    });

    it('shard: a StatefulSet of replicaCount pods, each told its share from its pod index, and a headless Service', async () => {
      const rendered = await renderChart({
        shard: { enabled: true },
        replicaCount: 3,
        scenarios: { 'checkout.yaml': SCENARIO },
        server: { autostart: ['checkout'] },
      });
      expect(rendered.kinds()).to.deep.equal(['ConfigMap', 'Service', 'Service', 'StatefulSet']);
      const statefulSet = rendered.one('StatefulSet');
      expect(statefulSet.spec).to.deep.include({
        replicas: 3,
        serviceName: 'demo-svc-headless',
        podManagementPolicy: 'Parallel',
      });
      const env = envOf(statefulSet);
      expect(env.SVC_POD_INDEX).to.deep.equal({
        fieldRef: { fieldPath: "metadata.labels['apps.kubernetes.io/pod-index']" },
      });
      // Kubernetes expands $(SVC_POD_INDEX), defined before it.
      expect(env.SVC_SHARD).to.equal('$(SVC_POD_INDEX)/3');
      expect(rendered.one('Service', 'demo-svc-headless').spec).to.deep.include({ clusterIP: 'None' });
      expect(container(statefulSet).readinessProbe.httpGet.path).to.equal('/health?ready');
      expect(rendered.notes).to.match(/Shard mode: 3 pods/);
    });

    it('shard: a StatefulSet name that leaves its pods a controller-revision-hash label of 63 characters at most', async () => {
      // Helm's longest release name (53): the fullname <release>-svc is 57 characters.
      const release = 'load-test-of-the-checkout-pipeline-in-eu-west-1-stage';
      for (const values of [{}, { fullnameOverride: 'x'.repeat(63) }]) {
        const rendered = await renderChart(
          { ...values, shard: { enabled: true }, replicaCount: 3, server: { state: { enabled: true } } },
          { release },
        );
        const name = rendered.one('StatefulSet').metadata.name;
        // Kubernetes labels each pod controller-revision-hash=<name>-<hash of up to 10 characters>.
        expect(`${name}-${'h'.repeat(10)}`.length, name).to.be.at.most(63);
        expect(name).to.match(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
      }
    });

    it('shard and autoscaling together are refused: the share of each pod is fixed by replicaCount', async () => {
      const failure = await renderChart({ shard: { enabled: true }, autoscaling: { enabled: true } }).catch(
        (error: Error) => error.message,
      );
      expect(failure).to.match(/shard\.enabled and autoscaling\.enabled cannot go together/);
    });
  });
});
