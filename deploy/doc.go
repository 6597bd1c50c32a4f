// Package deploy holds what runs radish in production: the container image
// recipe (Dockerfile: the static radish-server and radish-probe on a
// distroless base, non-root) and the Kubernetes manifests (k8s/, applied
// with kustomize: a StatefulSet with one pod per node, a volume claim for
// the data directory, CPU requests equal to limits so the shard count the
// server reads from its cgroup matches them, maxmemory auto under the
// memory limit, exec probes through radish-probe; a headless and a client
// Service, a PodDisruptionBudget, a ServiceMonitor and the ConfigMap with
// radish.conf), and the Grafana dashboard (grafana/radish.json) over the
// server's metrics.
//
// The package has no code, only its test, which is what must stay true:
// every manifest decodes strictly into its Kubernetes (or Prometheus
// Operator) type, the documents agree with each other (selectors, ports,
// names, mounts), and the StatefulSet's container command, arguments,
// configuration and probes, run against the real binaries as the kubelet
// would run them, start a server that its probes find live and ready and
// that a SIGTERM stops within the grace period; the dashboard decodes
// strictly, its expressions parse and name only metrics the server exports.
package deploy
