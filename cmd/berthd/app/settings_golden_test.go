package app

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// berthd's flags (names, defaults, help) and its configuration file's keys
// are what users' scripts and files depend on: they change only on
// purpose, with the golden files (go test -update) and README.
func TestSettingsGolden(t *testing.T) {
	t.Setenv("GOGC", "")
	var help bytes.Buffer
	if code := Main(t.Context(), []string{"--help"}, &help, &help); code != exitOK {
		t.Fatalf("--help: exit %d", code)
	}
	var keys bytes.Buffer
	for _, section := range []string{"", "tls.", "etcd."} {
		o := defaultOptions()
		err := parseConfigFile([]byte(nestedUnknown(section)), t.TempDir(), &o)
		keys.WriteString(err.Error() + "\n")
	}
	for name, got := range map[string][]byte{"help.golden": help.Bytes(), "keys.golden": keys.Bytes()} {
		path := filepath.Join("testdata", name)
		if *update {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", path, got, want)
		}
	}
}

// nestedUnknown is a file with an unknown key in section ("tls.").
func nestedUnknown(section string) string {
	if section == "" {
		return "zzz: 1\n"
	}
	return section[:len(section)-1] + ":\n  zzz: 1\n"
}
