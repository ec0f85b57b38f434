package app

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// FuzzConfigFile reads any bytes as berthd's --config file. A refused file
// leaves the options as they were and its error names a key when it is
// about one; an accepted file reads the same way twice, and every path it
// sets is resolved against the file's directory.
func FuzzConfigFile(f *testing.F) {
	f.Add([]byte(fullConfig))
	if data, err := os.ReadFile("../../../deploy/berthd.yaml"); err == nil {
		f.Add(data)
	}
	f.Add([]byte("listen: 127.0.0.1:0\ntls: {cert: a, key: b}\nunknown: 1\n"))
	f.Add([]byte("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"))
	f.Add([]byte("retainFor: 0\nshutdownTimeout: 10\nlogLevel: loud\ngcPercent: 1e400\n"))
	const dir = "/etc/berth"
	f.Fuzz(func(t *testing.T, data []byte) {
		o := defaultOptions()
		err := parseConfigFile(data, dir, &o)
		if err != nil {
			if !reflect.DeepEqual(o, defaultOptions()) {
				t.Fatalf("a refused file changed the options: %+v", o)
			}
			if err.Error() == "" {
				t.Fatal("an empty error message")
			}
			if strings.HasPrefix(err.Error(), "unknown key") && !strings.Contains(err.Error(), "; the keys here are ") {
				t.Fatalf("an unknown key without the keys allowed: %v", err)
			}
			return
		}
		again := defaultOptions()
		if err := parseConfigFile(data, dir, &again); err != nil || !reflect.DeepEqual(o, again) {
			t.Fatalf("a second read differs: %v\n%+v\n%+v", err, o, again)
		}
		def := defaultOptions()
		for _, p := range []struct{ name, got, def string }{
			{"dataDir", o.dataDir, def.dataDir}, {"schedulerConfig", o.schedulerConfig, def.schedulerConfig},
			{"tokenFile", o.tokenFile, def.tokenFile}, {"tls.cert", o.tls.Cert, def.tls.Cert},
			{"tls.key", o.tls.Key, def.tls.Key}, {"tls.clientCA", o.tls.ClientCA, def.tls.ClientCA},
		} {
			if p.got != p.def && p.got != "" && !filepath.IsAbs(p.got) {
				t.Fatalf("%s %q is not resolved against %s", p.name, p.got, dir)
			}
		}
	})
}
