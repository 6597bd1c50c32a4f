package deploy

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"
)

// kustomization is the part of kustomize's file the manifests use.
type kustomization struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Labels     []struct {
		Pairs            map[string]string `json:"pairs"`
		IncludeSelectors bool              `json:"includeSelectors"`
	} `json:"labels"`
	Resources []string `json:"resources"`
}

// manifests are the decoded documents of k8s/.
type manifests struct {
	sts      appsv1.StatefulSet
	cm       corev1.ConfigMap
	svc      corev1.Service
	headless corev1.Service
	pdb      policyv1.PodDisruptionBudget
	sm       monitoringv1.ServiceMonitor
}

// decode reads k8s/name strictly (an unknown field is an error) into v,
// and checks its kind.
func decode(t *testing.T, name, kind string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("k8s", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var meta struct {
		Kind string `json:"kind"`
	}
	yaml.Unmarshal(b, &meta)
	if meta.Kind != kind {
		t.Fatalf("%s: kind %q, want %q", name, meta.Kind, kind)
	}
}

func load(t *testing.T) *manifests {
	t.Helper()
	var k kustomization
	decode(t, "kustomization.yaml", "Kustomization", &k)
	files, _ := filepath.Glob("k8s/*.yaml")
	for _, f := range files {
		if b := filepath.Base(f); b != "kustomization.yaml" && !slices.Contains(k.Resources, b) {
			t.Errorf("kustomization.yaml does not list %s", b)
		}
	}
	m := &manifests{}
	docs := map[string]struct {
		kind string
		v    any
	}{
		"statefulset.yaml":      {"StatefulSet", &m.sts},
		"configmap.yaml":        {"ConfigMap", &m.cm},
		"service.yaml":          {"Service", &m.svc},
		"service-headless.yaml": {"Service", &m.headless},
		"pdb.yaml":              {"PodDisruptionBudget", &m.pdb},
		"servicemonitor.yaml":   {"ServiceMonitor", &m.sm},
	}
	for _, r := range k.Resources {
		d, ok := docs[r]
		if !ok {
			t.Fatalf("kustomization.yaml lists %s, which the test does not know", r)
		}
		decode(t, r, d.kind, d.v)
	}
	if len(k.Resources) != len(docs) {
		t.Fatalf("kustomization.yaml lists %d resources, want %d", len(k.Resources), len(docs))
	}
	return m
}

// TestManifestsAgree checks what makes the manifests work together and
// what production needs of them.
func TestManifestsAgree(t *testing.T) {
	m := load(t)
	pod := m.sts.Spec.Template
	labels := pod.Labels
	matches := func(what string, sel map[string]string) {
		for k, v := range sel {
			if labels[k] != v {
				t.Errorf("%s selects %s=%s, which the pods do not carry", what, k, v)
			}
		}
		if len(sel) == 0 {
			t.Errorf("%s selects nothing", what)
		}
	}
	matches("the StatefulSet", m.sts.Spec.Selector.MatchLabels)
	matches("the Service", m.svc.Spec.Selector)
	matches("the headless Service", m.headless.Spec.Selector)
	matches("the PodDisruptionBudget", m.pdb.Spec.Selector.MatchLabels)
	matches("the ServiceMonitor", m.sm.Spec.Selector.MatchLabels)
	for k, v := range m.sm.Spec.Selector.MatchLabels {
		if m.svc.Labels[k] != v {
			t.Errorf("the ServiceMonitor selects Services with %s=%s; the client Service has no such label", k, v)
		}
	}
	if m.sts.Spec.ServiceName != m.headless.Name || m.headless.Spec.ClusterIP != corev1.ClusterIPNone {
		t.Errorf("serviceName %q must name the headless Service (%q, clusterIP %q)",
			m.sts.Spec.ServiceName, m.headless.Name, m.headless.Spec.ClusterIP)
	}
	if len(pod.Spec.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(pod.Spec.Containers))
	}
	c := pod.Spec.Containers[0]
	ports := map[string]int32{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	for _, svc := range []corev1.Service{m.svc, m.headless} {
		for _, p := range svc.Spec.Ports {
			if p.TargetPort.Type != intstr.String || ports[p.TargetPort.StrVal] == 0 {
				t.Errorf("Service %s port %s targets %q, not a named container port", svc.Name, p.Name, p.TargetPort.String())
			}
		}
	}
	for _, e := range m.sm.Spec.Endpoints {
		if !slices.ContainsFunc(m.svc.Spec.Ports, func(p corev1.ServicePort) bool { return p.Name == e.Port }) {
			t.Errorf("the ServiceMonitor scrapes port %q, which the Service lacks", e.Port)
		}
	}
	conf := m.cm.Data["radish.conf"]
	if conf == "" {
		t.Fatal("the ConfigMap holds no radish.conf")
	}
	directive := func(name string) string {
		for _, line := range strings.Split(conf, "\n") {
			if f := strings.Fields(line); len(f) == 2 && f[0] == name {
				return f[1]
			}
		}
		return ""
	}
	if p := directive("port"); p != strconv.Itoa(int(ports["redis"])) {
		t.Errorf("port %q, container port redis %d", p, ports["redis"])
	}
	if p := directive("metrics-port"); p != strconv.Itoa(int(ports["metrics"])) {
		t.Errorf("metrics-port %q, container port metrics %d", p, ports["metrics"])
	}
	mounts := map[string]corev1.VolumeMount{}
	for _, vm := range c.VolumeMounts {
		mounts[vm.Name] = vm
	}
	if len(m.sts.Spec.VolumeClaimTemplates) != 1 {
		t.Fatal("want one volumeClaimTemplate, for dir")
	}
	if vm, ok := mounts[m.sts.Spec.VolumeClaimTemplates[0].Name]; !ok || vm.MountPath != directive("dir") {
		t.Errorf("dir %q is not where the claim %q is mounted (%q)", directive("dir"), m.sts.Spec.VolumeClaimTemplates[0].Name, vm.MountPath)
	}
	cfgArg := c.Args[len(c.Args)-1]
	var cfgMount *corev1.VolumeMount
	for _, v := range pod.Spec.Volumes {
		if v.ConfigMap != nil && v.ConfigMap.Name == m.cm.Name {
			vm := mounts[v.Name]
			cfgMount = &vm
		}
	}
	if cfgMount == nil || cfgArg != filepath.Join(cfgMount.MountPath, "radish.conf") {
		t.Errorf("the config file argument %q is not the ConfigMap's mounted radish.conf", cfgArg)
	}
	r := c.Resources
	for _, res := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		req, lim := r.Requests[res], r.Limits[res]
		if lim.IsZero() || req.Cmp(lim) != 0 {
			t.Errorf("%s: request %s, limit %s: want equal and set (shards follow the CPU limit, maxmemory auto the memory limit)", res, req.String(), lim.String())
		}
	}
	if cpu := r.Limits[corev1.ResourceCPU]; cpu.MilliValue()%1000 != 0 {
		t.Errorf("CPU limit %s: want whole CPUs, one shard each", cpu.String())
	}
	if directive("bind") != "127.0.0.1" && directive("protected-mode") != "no" && directive("requirepass") == "" {
		t.Error("bound beyond loopback with no password, protected mode would refuse the pod network's clients")
	}
	if directive("maxmemory") != "auto" {
		t.Error("maxmemory should be auto: a fraction of the memory limit")
	}
	sc := c.SecurityContext
	if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
		sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
		t.Error("the container needs a read-only root file system and no privilege escalation")
	}
	if psc := pod.Spec.SecurityContext; psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot {
		t.Error("the pod must run as non-root")
	}
	if g := pod.Spec.TerminationGracePeriodSeconds; g == nil || *g <= 10 {
		t.Error("terminationGracePeriodSeconds must exceed the server's 10 s shutdown timeout")
	}
	if a := pod.Spec.Affinity; a == nil || a.PodAntiAffinity == nil ||
		len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) == 0 ||
		a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0].TopologyKey != "kubernetes.io/hostname" {
		t.Error("want one pod per node (required anti-affinity on kubernetes.io/hostname)")
	}
	for name, p := range map[string]*corev1.Probe{"startup": c.StartupProbe, "readiness": c.ReadinessProbe, "liveness": c.LivenessProbe} {
		if p == nil {
			t.Errorf("no %s probe", name)
		}
	}
}

// binaries maps the image's paths to binaries built from this tree.
func binaries(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	out := map[string]string{}
	for _, name := range []string{"radish-server", "radish-probe"} {
		bin := filepath.Join(dir, name)
		build := exec.Command("go", "build", "-o", bin, "../cmd/"+name)
		if b, err := build.CombinedOutput(); err != nil {
			t.Fatalf("building %s: %v\n%s", name, err, b)
		}
		out["/usr/local/bin/"+name] = bin
	}
	return out
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// TestStatefulSetRuns runs the StatefulSet's container as the kubelet
// would: its command and arguments, its environment, the ConfigMap's
// radish.conf at the mount path, the data volume at its mount path; then
// its probes (exec, HTTP or TCP) until the startup probe passes and the
// readiness and liveness probes with it; the ServiceMonitor's endpoint
// serves metrics; a SIGTERM stops it within the grace period. Paths of the
// image and of the volumes are mapped to this machine's, and the ports to
// free ones: nothing else is changed.
func TestStatefulSetRuns(t *testing.T) {
	m := load(t)
	pod := m.sts.Spec.Template.Spec
	c := pod.Containers[0]
	bins := binaries(t)
	root := t.TempDir()
	ports := map[int32]int{}
	for _, p := range c.Ports {
		ports[p.ContainerPort] = freePort(t)
	}
	// mapArg rewrites one argument (or config line) from the container's
	// world to this machine's.
	var mounts [][2]string
	for _, vm := range c.VolumeMounts {
		dir := filepath.Join(root, vm.Name)
		os.MkdirAll(dir, 0o755)
		mounts = append(mounts, [2]string{vm.MountPath, dir})
	}
	mapArg := func(s string) string {
		if b, ok := bins[s]; ok {
			return b
		}
		for _, mt := range mounts {
			if s == mt[0] || strings.HasPrefix(s, mt[0]+"/") {
				return mt[1] + s[len(mt[0]):]
			}
		}
		for from, to := range ports {
			s = strings.ReplaceAll(s, ":"+strconv.Itoa(int(from)), ":"+strconv.Itoa(to))
		}
		return s
	}
	for _, v := range pod.Volumes {
		if v.ConfigMap == nil {
			continue
		}
		for _, mt := range mounts {
			if !strings.HasSuffix(mt[1], "/"+v.Name) {
				continue
			}
			for name, text := range m.cm.Data {
				var lines []string
				for _, line := range strings.Split(text, "\n") {
					f := strings.Fields(line)
					if len(f) == 2 && (f[0] == "port" || f[0] == "metrics-port") {
						p, _ := strconv.Atoi(f[1])
						line = f[0] + " " + strconv.Itoa(ports[int32(p)])
					} else if len(f) == 2 && f[0] == "dir" {
						line = "dir " + mapArg(f[1])
					} else if len(f) == 2 && f[0] == "bind" {
						line = "bind 127.0.0.1" // the test's pod network is loopback
					}
					lines = append(lines, line)
				}
				os.WriteFile(filepath.Join(mt[1], name), []byte(strings.Join(lines, "\n")), 0o644)
			}
		}
	}
	argv := append(append([]string(nil), c.Command...), c.Args...)
	for i := range argv {
		argv[i] = mapArg(argv[i])
	}
	srv := exec.Command(argv[0], argv[1:]...)
	for _, e := range c.Env {
		srv.Env = append(srv.Env, e.Name+"="+e.Value)
	}
	srv.Dir = mapArg(pod.Containers[0].WorkingDir)
	if srv.Dir == "" {
		srv.Dir = root
	}
	logs := &strings.Builder{}
	srv.Stdout, srv.Stderr = logs, logs
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- srv.Wait() }()
	defer func() {
		srv.Process.Kill()
		<-exited
	}()
	run := func(p *corev1.Probe) error {
		timeout := time.Duration(max(p.TimeoutSeconds, 1)) * time.Second
		switch {
		case p.Exec != nil:
			argv := slices.Clone(p.Exec.Command)
			for i := range argv {
				argv[i] = mapArg(argv[i])
			}
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Env = srv.Env
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("%v: %s", err, out)
			}
			return nil
		case p.HTTPGet != nil:
			cl := http.Client{Timeout: timeout}
			resp, err := cl.Get(fmt.Sprintf("http://127.0.0.1:%d%s", ports[portOf(c, p.HTTPGet.Port)], p.HTTPGet.Path))
			if err != nil {
				return err
			}
			resp.Body.Close()
			if resp.StatusCode < 200 || resp.StatusCode >= 400 {
				return fmt.Errorf("HTTP %d", resp.StatusCode)
			}
			return nil
		case p.TCPSocket != nil:
			conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", ports[portOf(c, p.TCPSocket.Port)]), timeout)
			if err == nil {
				conn.Close()
			}
			return err
		}
		return fmt.Errorf("a probe with no handler")
	}
	// The startup probe: until it passes, within its failure threshold
	// (bounded here to 20 s: the data directory is empty).
	sp := c.StartupProbe
	deadline := time.Now().Add(min(time.Duration(sp.FailureThreshold*max(sp.PeriodSeconds, 1))*time.Second, 20*time.Second))
	for {
		err := run(sp)
		if err == nil {
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("the server exited: %v\n%s", err, logs)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the startup probe never passed: %v\n%s", err, logs)
		}
		time.Sleep(100 * time.Millisecond)
	}
	for name, p := range map[string]*corev1.Probe{"readiness": c.ReadinessProbe, "liveness": c.LivenessProbe} {
		if err := run(p); err != nil {
			t.Errorf("%s probe: %v", name, err)
		}
	}
	for _, e := range m.sm.Spec.Endpoints {
		var target int32
		for _, p := range m.svc.Spec.Ports {
			if p.Name == e.Port {
				target = portOf(c, p.TargetPort)
			}
		}
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d%s", ports[target], e.Path))
		if err != nil {
			t.Fatalf("the ServiceMonitor's endpoint: %v", err)
		}
		sc := bufio.NewScanner(resp.Body)
		found := false
		for sc.Scan() {
			found = found || strings.HasPrefix(sc.Text(), "radish_commands_processed_total{")
		}
		resp.Body.Close()
		if !found {
			t.Error("the ServiceMonitor's endpoint serves no radish metrics")
		}
	}
	srv.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("after SIGTERM: %v\n%s", err, logs)
		}
	case <-time.After(time.Duration(*pod.TerminationGracePeriodSeconds) * time.Second):
		t.Errorf("still running after the grace period\n%s", logs)
	}
	exited <- nil
}

// portOf resolves a probe's or Service's port (a number or a container
// port's name) to the container port.
func portOf(c corev1.Container, p intstr.IntOrString) int32 {
	if p.Type == intstr.Int {
		return p.IntVal
	}
	for _, cp := range c.Ports {
		if cp.Name == p.StrVal {
			return cp.ContainerPort
		}
	}
	return 0
}
