package app

import (
	"flag"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/berthsched/berth/server/daemon"
)

// setting is one of berthd's settings, declared once: its flag, its key in
// the configuration file (--config), its help and the field of options it
// sets. The flags and the file's keys are both made from settingsTable,
// so that neither can gain a setting the other lacks by accident.
type setting struct {
	// flag is the flag's name without dashes; "" for a setting only the
	// configuration file holds (the eviction thresholds).
	flag string
	// key is the setting's path in the configuration file, sections
	// joined by dots ("tls.cert"); "" for a flag the file must not hold
	// (--config itself, --accept-truncated-log, ...).
	key   string
	usage string
	// form says how a file's value becomes the field's.
	form form
	// field is the setting's field in o: a *string, *int, *int64,
	// *uint32, *bool, *time.Duration, *slog.Level, or the type form
	// names.
	field func(o *options) any
}

// form is how a configuration file's value is read.
type form uint8

const (
	// asIs: the value decodes into the field's type (a duration as
	// "10s").
	asIs form = iota
	// asPath: a string, relative to the file's directory.
	asPath
	// asList: a list of strings, which the flag takes comma-separated.
	asList
	// asPools: evictionPools, each pool decoded strictly.
	asPools
	// asGates: a mapping of feature gates to booleans, which the flag
	// takes as kube spells it (GenericWorkload=false,...).
	asGates
)

// settingsTable is every setting of berthd. The usage texts are the
// flags' help; the keys are documented in deploy/berthd.yaml (the etcd
// group's in docs/high-availability.md). testdata/help.golden and
// testdata/keys.golden hold what they make.
func settingsTable() []setting {
	return []setting{
		{flag: "config", usage: "berthd's configuration file (YAML) holding the settings of these flags (see deploy/berthd.yaml); flags given here win over it",
			field: func(o *options) any { return &o.configFile }},
		{flag: "listen", key: "listen", usage: "gRPC listen address: host:port or unix:///path",
			field: func(o *options) any { return &o.listen }},
		{flag: "metrics-listen", key: "metricsListen", usage: `HTTP address of /metrics and /healthz: host:port or unix:///path; "" disables`,
			field: func(o *options) any { return &o.metricsListen }},
		{flag: "http-listen", key: "httpListen", usage: `HTTP/JSON API address (every berth.v1 RPC, /openapi.json; the tokens, TLS and limits of gRPC): host:port or unix:///path; "" disables`,
			field: func(o *options) any { return &o.httpListen }},
		{flag: "data-dir", key: "dataDir", form: asPath, usage: "directory of berthd's durable state, created if missing",
			field: func(o *options) any { return &o.dataDir }},
		{flag: "scheduler-config", key: "schedulerConfig", form: asPath, usage: "KubeSchedulerConfiguration file (kubescheduler.config.k8s.io/v1, YAML or JSON); empty: kube-scheduler's defaults",
			field: func(o *options) any { return &o.schedulerConfig }},
		{flag: "descheduler-policy", key: "deschedulerPolicy", form: asPath, usage: "DeschedulerPolicy file (descheduler/v1alpha2, YAML or JSON): AdminService.Deschedule and berthctl deschedule run it, and every deschedulingInterval when the file sets one; empty: no descheduling",
			field: func(o *options) any { return &o.deschedulerPolicy }},
		{flag: "defragment", key: "defragment", usage: "make room for pending pods and pod groups that fit nowhere and cannot preempt: evict a few movable pods (cause defragment, within their disruption budgets) that Berth's scheduler re-places elsewhere, and nominate the waiting pods to the room (docs/descheduling.md)",
			field: func(o *options) any { return &o.defrag.enabled }},
		{flag: "defragment-max-moves", key: "defragmentMaxMoves", usage: "with --defragment: most pods one plan moves (all of a pod group's members together)",
			field: func(o *options) any { return &o.defrag.maxMoves }},
		{flag: "defragment-timeout", key: "defragmentTimeout", usage: "with --defragment: longest one search for a plan may run",
			field: func(o *options) any { return &o.defrag.timeout }},
		{flag: "defragment-interval", key: "defragmentInterval", usage: "with --defragment: how often pending pods are checked, and how long one must have been pending, its last attempt failed, before room is made for it",
			field: func(o *options) any { return &o.defrag.interval }},
		{flag: "kueue-config", key: "kueueConfig", form: asPath, usage: "Kueue's Configuration file (config.kueue.x-k8s.io/v1beta1 or v1beta2): fairSharing.enable and preemptionStrategies for Kueue admission; empty: Kueue's defaults (no fair sharing)",
			field: func(o *options) any { return &o.kueueConfig }},
		{flag: "feature-gates", key: "featureGates", form: asGates, usage: "kube-scheduler 1.37's feature gates, as kube spells them (GenericWorkload=false,...); see README",
			field: func(o *options) any { return &o.featureGates }},
		{flag: "log-level", key: "logLevel", usage: "log level: debug, info, warn or error",
			field: func(o *options) any { return &o.logLevel }},
		{flag: "shutdown-timeout", key: "shutdownTimeout", usage: "how long RPCs in flight may take to finish on shutdown",
			field: func(o *options) any { return &o.shutdownTimeout }},
		{flag: "retain-decisions", key: "retainDecisions", usage: "keep at most this many decisions in the log; 0: no count limit",
			field: func(o *options) any { return &o.retainDecisions }},
		{flag: "retain-for", key: "retainFor", usage: "keep decisions only this long (e.g. 168h); 0: no age limit",
			field: func(o *options) any { return &o.retainFor }},
		{flag: "tls-cert", key: "tls.cert", form: asPath, usage: "PEM certificate of the gRPC server; with --tls-key enables TLS",
			field: func(o *options) any { return &o.tls.Cert }},
		{flag: "tls-key", key: "tls.key", form: asPath, usage: "PEM private key of --tls-cert",
			field: func(o *options) any { return &o.tls.Key }},
		{flag: "tls-client-ca", key: "tls.clientCA", form: asPath, usage: "PEM CA bundle: require client certificates it signed (mTLS)",
			field: func(o *options) any { return &o.tls.ClientCA }},
		{flag: "token-file", key: "tokenFile", form: asPath, usage: `bearer tokens, one per line, each optionally followed by "read-only"; empty: no token needed`,
			field: func(o *options) any { return &o.tokenFile }},
		{flag: "metrics-auth", key: "metricsAuth", usage: `who may read /metrics: "none" (anyone reaching --metrics-listen) or "token" (a bearer token of --token-file, read-only ones too); /healthz stays open`,
			field: func(o *options) any { return &o.metricsAuth }},
		{flag: "deterministic", key: "deterministic", usage: "break score ties by the smallest node name instead of at random, as berthctl simulate does (benchmarks, tests)",
			field: func(o *options) any { return &o.deterministic }},
		{flag: "max-batch-objects", key: "maxBatchObjects", usage: "most objects or references in one state request; 0: only the message size bounds it",
			field: func(o *options) any { return &o.maxMutations }},
		{flag: "gc-percent", key: "gcPercent", usage: fmt.Sprintf("garbage collector target, as GOGC: a collection starts when the heap has grown by this percentage of the live data; negative turns collection off. Default: GOGC when set, else %d (fewer collections slowing pods, for more memory)", daemon.DefaultGCPercent),
			field: func(o *options) any { return &o.gcPercent }},
		{flag: "taint-nodes-by-condition", key: "taintNodesByCondition", usage: "derive the node lifecycle controller's taints from node conditions (not-ready and unreachable NoExecute, the pressure and network-unavailable NoSchedule taints)",
			field: func(o *options) any { return &o.taintNodesByCondition }},
		{flag: "dashboard", key: "dashboard", usage: "serve the read-only web dashboard on --metrics-listen, behind --token-file's tokens when set",
			field: func(o *options) any { return &o.dashboard }},
		{flag: "version", usage: "print berthd's version and commit, then exit",
			field: func(o *options) any { return &o.version }},
		{flag: "healthcheck", usage: "ask the berthd serving on --metrics-listen for /healthz and exit 0 if it serves, 1 if not (container health checks); starts nothing",
			field: func(o *options) any { return &o.healthcheck }},
		{flag: "max-streams-per-conn", key: "maxStreamsPerConn", usage: "most calls in flight on one connection (HTTP/2 MAX_CONCURRENT_STREAMS: clients wait for a free one)",
			field: func(o *options) any { return &o.limits.ConnStreams }},
		{flag: "max-streams", key: "maxStreams", usage: "most calls in flight on all connections; beyond, calls are refused RESOURCE_EXHAUSTED before their request is read; 0: no limit",
			field: func(o *options) any { return &o.limits.Streams }},
		{flag: "max-request-bytes-per-conn", key: "maxRequestBytesPerConn", usage: "most bytes of request messages the calls of one connection hold; beyond, RESOURCE_EXHAUSTED; 0: no limit",
			field: func(o *options) any { return &o.limits.ConnRequestBytes }},
		{flag: "max-request-bytes", key: "maxRequestBytes", usage: "most bytes of request messages all calls hold; beyond, RESOURCE_EXHAUSTED; 0: no limit",
			field: func(o *options) any { return &o.limits.RequestBytes }},
		{flag: "simulate-max-objects", key: "simulateMaxObjects", usage: "most cluster_delta plus cluster_removals entries of one Simulate; beyond, RESOURCE_EXHAUSTED; 0: no limit",
			field: func(o *options) any { return &o.simulation.MaxObjects }},
		{flag: "simulate-max-pods", key: "simulateMaxPods", usage: "most pods one Simulate schedules; beyond, RESOURCE_EXHAUSTED; 0: no limit",
			field: func(o *options) any { return &o.simulation.MaxPods }},
		{flag: "simulate-max-attempts", key: "simulateMaxAttempts", usage: "most attempts one Simulate makes (a preemptor's retries included); beyond, RESOURCE_EXHAUSTED; 0: no limit",
			field: func(o *options) any { return &o.simulation.MaxAttempts }},
		{flag: "simulate-max-response-bytes", key: "simulateMaxResponseBytes", usage: "largest Simulate response (the default is what gRPC clients receive by default); beyond, RESOURCE_EXHAUSTED (summary mode leaves out per-node detail); 0: no limit",
			field: func(o *options) any { return &o.simulation.MaxResponseBytes }},
		{flag: "simulate-timeout", key: "simulateTimeout", usage: "longest one Simulate may run, whatever the caller's deadline; beyond, RESOURCE_EXHAUSTED; 0: no limit",
			field: func(o *options) any { return &o.simulation.Timeout }},
		{flag: "simulate-concurrency", key: "simulateConcurrency", usage: "most simulations running at once, each on at most one core; one more waits for a free slot within its caller's deadline; 0: no limit",
			field: func(o *options) any { return &o.simulation.Concurrency }},
		// It accepts a loss once, on the command line: never in the file.
		{flag: "accept-truncated-log", usage: "start even though the write-ahead file lost decisions already acknowledged (without this flag berthd refuses to start, exit code 4): it serves the history up to the loss, new decisions take the lost revision numbers again, and watchers must watch again from revision 0",
			field: func(o *options) any { return &o.acceptTruncatedLog }},
		{flag: "initial-sync-timeout", key: "initialSyncTimeout", usage: "after a restart, how long scheduling waits for the orchestrator's first re-list (a Sync RESYNC_END covering pods) before starting anyway; 0: no wait",
			field: func(o *options) any { return &o.initialSync }},

		// The store backend and the etcd group.
		{flag: "store", key: "store", usage: "where the decision log and ledgers live: bbolt (the data directory, one berthd) or etcd (replicas sharing --etcd-prefix, one leader elected; see docs/high-availability.md)",
			field: func(o *options) any { return &o.store }},
		{flag: "advertise-address", key: "advertiseAddress", usage: "with --store etcd: the gRPC address other replicas name to clients as the leader's (NOT_LEADER errors); default: --listen",
			field: func(o *options) any { return &o.advertise }},
		{flag: "advertise-http-address", key: "advertiseHTTPAddress", usage: "with --store etcd and --http-listen: the HTTP API address other replicas name to HTTP clients as the leader's (NOT_LEADER's leader_http); default: --http-listen",
			field: func(o *options) any { return &o.advertiseHTTP }},
		{flag: "etcd-endpoints", key: "etcd.endpoints", form: asList, usage: "with --store etcd: etcd's client URLs, comma-separated (https://etcd-1:2379,https://etcd-2:2379)",
			field: func(o *options) any { return &o.etcd.endpoints }},
		{flag: "etcd-cert", key: "etcd.cert", form: asPath, usage: "PEM client certificate for etcd (with --etcd-key)",
			field: func(o *options) any { return &o.etcd.cert }},
		{flag: "etcd-key", key: "etcd.key", form: asPath, usage: "PEM private key of --etcd-cert",
			field: func(o *options) any { return &o.etcd.key }},
		{flag: "etcd-ca", key: "etcd.ca", form: asPath, usage: "PEM CA bundle that signed etcd's server certificates; set for https endpoints not signed by a system CA",
			field: func(o *options) any { return &o.etcd.ca }},
		{flag: "etcd-username", key: "etcd.username", usage: "etcd user (etcd authentication), with --etcd-password-file",
			field: func(o *options) any { return &o.etcd.username }},
		// The password is only ever read from a file: the file has no
		// password key either.
		{flag: "etcd-password-file", key: "etcd.passwordFile", form: asPath, usage: "file holding --etcd-username's password (its first line)",
			field: func(o *options) any { return &o.etcd.passwordFile }},
		{flag: "etcd-prefix", key: "etcd.prefix", usage: "key prefix of this Berth cluster in etcd; replicas of one cluster share it, other clusters use others",
			field: func(o *options) any { return &o.etcd.prefix }},
		{flag: "etcd-lease-ttl", key: "etcd.leaseTTL", usage: "the leader's lease: a leader that stops renewing it (dead, paused, cut off from etcd) is replaced after at most this long; whole seconds",
			field: func(o *options) any { return &o.etcd.leaseTTL }},

		// Node-pressure eviction, with the kubelet's names
		// (server/pressuresvc); the file only.
		{key: "evictionHard", field: func(o *options) any { return &o.pressure.EvictionHard }},
		{key: "evictionSoft", field: func(o *options) any { return &o.pressure.EvictionSoft }},
		{key: "evictionSoftGracePeriod", field: func(o *options) any { return &o.pressure.EvictionSoftGracePeriod }},
		{key: "evictionMinimumReclaim", field: func(o *options) any { return &o.pressure.EvictionMinimumReclaim }},
		{key: "evictionPressureTransitionPeriod", field: func(o *options) any { return &o.pressure.EvictionPressureTransitionPeriod }},
		{key: "evictionMaxPodGracePeriod", field: func(o *options) any { return &o.pressure.EvictionMaxPodGracePeriod }},
		{key: "evictionStatsMaxAge", field: func(o *options) any { return &o.pressure.EvictionStatsMaxAge }},
		{key: "evictionPools", form: asPools, field: func(o *options) any { return &o.pressure.EvictionPools }},
	}
}

// register defines the flags of the table on fs, bound to o, with o's
// values as their defaults.
func (o *options) register(fs *flag.FlagSet) {
	for _, s := range settingsTable() {
		if s.flag == "" {
			continue
		}
		switch p := s.field(o).(type) {
		case *string:
			fs.StringVar(p, s.flag, *p, s.usage)
		case *bool:
			fs.BoolVar(p, s.flag, *p, s.usage)
		case *int:
			fs.IntVar(p, s.flag, *p, s.usage)
		case *int64:
			fs.Int64Var(p, s.flag, *p, s.usage)
		case *uint32:
			fs.Var(uint32Value{p}, s.flag, s.usage)
		case *time.Duration:
			fs.DurationVar(p, s.flag, *p, s.usage)
		case *slog.Level:
			fs.TextVar(p, s.flag, *p, s.usage)
		default:
			panic(fmt.Sprintf("settings: --%s has a field of type %T no flag takes", s.flag, p))
		}
	}
}

// uint32Value is a flag.Value over a *uint32.
type uint32Value struct{ p *uint32 }

func (v uint32Value) Set(s string) error {
	n, err := strconv.ParseUint(s, 10, 32)
	*v.p = uint32(n)
	return err
}

func (v uint32Value) String() string {
	if v.p == nil { // flag's zero-value probe for its help text
		return "0"
	}
	return strconv.FormatUint(uint64(*v.p), 10)
}
