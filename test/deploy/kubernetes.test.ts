/**
 * The Kubernetes manifests (deploy/kubernetes/) checked against the app they run, so
 * the two cannot drift: the container's environment is read by server/framework/config.ts's own
 * loadConfig (defaults and all), the probe paths are asked of the real app, the grace
 * period is computed from the shutdown settings, and the objects select the same pods.
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { parseAllDocuments } from 'yaml'
import { ConfigError, loadConfig, type AppConfig } from '../../server/framework/config.js'
import { createTestApp } from '../helpers/app.js'
import { projectRoot } from '../helpers/build.js'
import { instructionsOf, readDockerfile } from '../helpers/dockerfile.js'

const dir = path.join(projectRoot, 'deploy/kubernetes')

type Manifest = Record<string, any>

/** Every document of every YAML file in the folder, by file; a YAML error fails at once. */
const files = new Map<string, Manifest[]>()
for (const name of readdirSync(dir)
  .filter((file) => /\.ya?ml$/.test(file))
  .sort()) {
  const documents = parseAllDocuments(readFileSync(path.join(dir, name), 'utf8'))
  const list = Array.isArray(documents) ? documents : [documents]
  for (const document of list) {
    if (document.errors.length > 0) throw new Error(`${name}: ${document.errors.map((error) => error.message).join('; ')}`)
  }
  files.set(
    name,
    list.map((document) => document.toJS() as Manifest).filter((value) => value !== null),
  )
}
const all = [...files.values()].flat()

function one(kind: string): Manifest {
  const found = all.filter((manifest) => manifest.kind === kind)
  if (found.length !== 1) throw new Error(`expected one ${kind}, found ${found.length}`)
  return found[0]!
}

const deployment = one('Deployment')
const service = one('Service')
const pdb = one('PodDisruptionBudget')
const hpa = one('HorizontalPodAutoscaler')
const secret = one('Secret')
const pod = deployment.spec.template.spec
const container = pod.containers[0]
const envList: Array<{ name: string; value?: string; valueFrom?: any }> = container.env ?? []

/** The container's plain environment variables (those given as values). */
const plainEnv = Object.fromEntries(envList.filter((entry) => entry.value !== undefined).map((entry) => [entry.name, String(entry.value)]))

/** What the app makes of that environment: server/framework/config.ts's defaults for the rest. */
const effective: AppConfig = loadConfig(plainEnv)
/** server/framework/config.ts's defaults, as the app applies them with nothing set. */
const defaults: AppConfig = loadConfig({})

/** A CPU or memory quantity in base units (cores, bytes). */
function quantity(text: string | number): number {
  const match = /^(\d+(?:\.\d+)?)(m|Ki|Mi|Gi|k|M|G)?$/.exec(String(text))
  if (!match) throw new Error(`not a quantity this test reads: ${text}`)
  const factor = { m: 0.001, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, k: 1e3, M: 1e6, G: 1e9 }[match[2] ?? ''] ?? 1
  return Number(match[1]) * factor
}

t.test('every file parses; each object has apiVersion, kind and a name; kustomization lists all but the secret template', async (t) => {
  t.same([...files.keys()], ['deployment.yaml', 'hpa.yaml', 'kustomization.yaml', 'pdb.yaml', 'secret.example.yaml', 'service.yaml'])
  for (const manifest of all) {
    t.ok(manifest.apiVersion && manifest.kind, `${manifest.kind}: apiVersion and kind`)
    if (manifest.kind !== 'Kustomization') t.ok(manifest.metadata?.name, `${manifest.kind} is named`)
  }
  t.equal(hpa.apiVersion, 'autoscaling/v2')
  t.equal(pdb.apiVersion, 'policy/v1')
  t.equal(deployment.apiVersion, 'apps/v1')
  const kustomization = one('Kustomization')
  t.same(
    [...kustomization.resources].sort(),
    [...files.keys()].filter((name) => name !== 'kustomization.yaml' && name !== 'secret.example.yaml').sort(),
    'every manifest but the template',
  )
})

t.test("the container environment is valid configuration, and the port is the app's", async (t) => {
  t.equal(effective.port, defaults.port, 'PORT is the default one (server/framework/config.ts)')
  const ports: Array<{ name: string; containerPort: number }> = container.ports
  t.same(
    ports.map((port) => [port.name, port.containerPort]),
    [
      ['http', effective.port],
      ['metrics', effective.metrics?.port],
    ],
    'the container ports are the ones the app and its metrics listen on',
  )
  const template = deployment.spec.template.metadata
  t.equal(template.annotations['prometheus.io/port'], String(effective.metrics?.port), 'the scrape annotation names the metrics port')
  const servicePorts: Array<{ targetPort: unknown }> = service.spec.ports
  t.notOk(
    servicePorts.some((port) => port.targetPort === 'metrics' || port.targetPort === effective.metrics?.port),
    'the Service, which an Ingress routes to, does not expose the metrics',
  )
  const exposed = instructionsOf(readDockerfile(path.join(projectRoot, 'Dockerfile')).stages.at(-1)!, 'EXPOSE').map((i) => Number(i.args))
  t.same(exposed, [effective.port], "and the image's EXPOSE")
  t.equal(plainEnv.HOST, undefined, 'HOST comes from the image (0.0.0.0), not repeated here')
})

t.test("probes: readiness on /api/ready, liveness on /api/health, both on the app's port, both answered by the app", async (t) => {
  const portOf = (probe: any) => {
    const port = probe.httpGet.port
    return typeof port === 'number' ? port : container.ports.find((entry: any) => entry.name === port)?.containerPort
  }
  t.equal(container.readinessProbe.httpGet.path, '/api/ready')
  t.equal(container.livenessProbe.httpGet.path, '/api/health')
  t.equal(portOf(container.readinessProbe), effective.port)
  t.equal(portOf(container.livenessProbe), effective.port)

  // Configured as the manifest configures it (ALLOWED_HOSTS, TRUST_PROXY).
  const { app } = await createTestApp(t, 'production', { config: { allowedHosts: effective.allowedHosts, trustProxy: effective.trustProxy } })
  for (const probe of [container.readinessProbe, container.livenessProbe]) {
    // The kubelet names the pod's address as the host.
    const res = await app.inject({ url: probe.httpGet.path, headers: { host: `10.1.2.3:${effective.port}` } })
    t.equal(res.statusCode, 200, `${probe.httpGet.path} answers 200 on a pod address`)
  }
  app.lifecycle.draining = true
  t.equal((await app.inject(container.readinessProbe.httpGet.path)).statusCode, 503, 'readiness fails while draining')
  t.equal((await app.inject(container.livenessProbe.httpGet.path)).statusCode, 200, 'liveness does not: a draining pod is not restarted')
})

t.test('shutdown: the grace period covers the delay and the drain; readiness fails within the delay', async (t) => {
  const delaySeconds = effective.shutdownDelayMs / 1000
  const graceSeconds = effective.shutdownGraceMs / 1000
  t.equal(effective.shutdownDelayMs, defaults.shutdownDelayMs, 'SHUTDOWN_DELAY_MS: the default')
  t.equal(effective.shutdownGraceMs, defaults.shutdownGraceMs, 'SHUTDOWN_GRACE_MS: the default')
  t.ok(
    pod.terminationGracePeriodSeconds >= delaySeconds + graceSeconds + 5,
    `terminationGracePeriodSeconds ${pod.terminationGracePeriodSeconds} >= ${delaySeconds} + ${graceSeconds} + 5`,
  )
  const readiness = container.readinessProbe
  t.ok(
    readiness.periodSeconds * readiness.failureThreshold < delaySeconds,
    `readiness fails (${readiness.periodSeconds} s x ${readiness.failureThreshold}) before the listener closes (${delaySeconds} s)`,
  )
  t.same(deployment.spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } })
  t.notOk(container.lifecycle?.preStop, 'no preStop hook: the app waits itself, and SIGTERM must come at once')
})

t.test('SESSION_SECRET comes from a Secret, never from the manifest; the template cannot be used as it is', async (t) => {
  const entry = envList.find((variable) => variable.name === 'SESSION_SECRET')
  t.ok(entry, 'SESSION_SECRET is set')
  t.equal(entry!.value, undefined, 'not as a value')
  const ref = entry!.valueFrom?.secretKeyRef
  t.ok(ref, 'from a secretKeyRef')
  t.equal(ref.name, secret.metadata.name, 'the Secret the template describes')
  t.ok(ref.key in (secret.stringData ?? {}), 'a key the template has')
  t.notOk(ref.optional, 'required: a pod without it does not start with a key of its own')
  for (const variable of envList.filter((entry) => /SECRET/.test(entry.name))) {
    t.equal(variable.value, undefined, `${variable.name}: from a Secret`)
  }
  const placeholder = String(secret.stringData.SESSION_SECRET)
  t.throws(() => loadConfig({ SESSION_SECRET: placeholder }), ConfigError, 'the placeholder is refused by the app at start')
  t.match(readFileSync(path.join(dir, 'secret.example.yaml'), 'utf8'), /TEMPLATE, not a secret/)
})

t.test('non-root, read-only root file system, /tmp writable for uploads', async (t) => {
  t.equal(pod.securityContext.runAsNonRoot, true)
  t.not(pod.securityContext.runAsUser, 0)
  const user = instructionsOf(readDockerfile(path.join(projectRoot, 'Dockerfile')).stages.at(-1)!, 'USER')
    .at(-1)!
    .args.split(':')[0]
  t.equal(String(pod.securityContext.runAsUser), user, "the image's user")
  t.equal(container.securityContext.readOnlyRootFilesystem, true)
  t.equal(container.securityContext.allowPrivilegeEscalation, false)
  t.same(container.securityContext.capabilities?.drop, ['ALL'])
  t.equal(effective.uploadDir, '/tmp', 'UPLOAD_DIR=/tmp')
  const mount = (container.volumeMounts ?? []).find((entry: any) => entry.mountPath === effective.uploadDir)
  t.ok(mount, 'a volume is mounted at UPLOAD_DIR')
  t.notOk(mount.readOnly, 'writable')
  const volume = pod.volumes.find((entry: any) => entry.name === mount.name)
  t.ok(volume?.emptyDir, 'an emptyDir')
  if (volume?.emptyDir?.sizeLimit) {
    t.ok(quantity(volume.emptyDir.sizeLimit) >= 10 * effective.uploadMaxBytes, 'room for ten of the largest forms at once')
  }
})

t.test('resources: requests and limits for CPU and memory, requests within limits', async (t) => {
  const { requests, limits } = container.resources
  for (const resource of ['cpu', 'memory']) {
    t.ok(requests?.[resource], `requests.${resource}`)
    t.ok(limits?.[resource], `limits.${resource}`)
    t.ok(quantity(requests[resource]) <= quantity(limits[resource]), `${resource}: request within limit`)
  }
})

t.test('Deployment, Service, PodDisruptionBudget and HorizontalPodAutoscaler name the same pods', async (t) => {
  const matchLabels = deployment.spec.selector.matchLabels
  const podLabels = deployment.spec.template.metadata.labels
  for (const [key, value] of Object.entries(matchLabels)) t.equal(podLabels[key], value, `pods carry ${key}`)
  t.same(service.spec.selector, matchLabels, 'the Service selects them')
  t.same(pdb.spec.selector.matchLabels, matchLabels, 'the PodDisruptionBudget too')
  t.same(
    { kind: hpa.spec.scaleTargetRef.kind, name: hpa.spec.scaleTargetRef.name, apiVersion: hpa.spec.scaleTargetRef.apiVersion },
    { kind: 'Deployment', name: deployment.metadata.name, apiVersion: deployment.apiVersion },
    'the autoscaler scales the Deployment',
  )
  const target = service.spec.ports[0].targetPort
  const targetPort = typeof target === 'number' ? target : container.ports.find((entry: any) => entry.name === target)?.containerPort
  t.equal(targetPort, effective.port, "the Service forwards to the app's port")

  t.ok(hpa.spec.minReplicas >= 2, 'at least two pods')
  t.ok(hpa.spec.maxReplicas >= hpa.spec.minReplicas)
  t.ok(pdb.spec.minAvailable < hpa.spec.minReplicas, 'the budget leaves room to evict a pod (a node drain can proceed)')
  t.equal(deployment.spec.replicas, undefined, 'the autoscaler owns the replica count')
  t.ok(
    hpa.spec.metrics.every((metric: any) => metric.type !== 'Resource' || container.resources.requests[metric.resource.name]),
    'every resource the autoscaler measures has a request (utilization is relative to it)',
  )
})
