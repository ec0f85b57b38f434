package cli

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseSyscalls(t *testing.T) {
	tests := []struct {
		name, tool, out string
		total           uint64
		byName          map[string]uint64
	}{
		{
			name: "perf stat CSV", tool: "perf",
			out:   "# started on Thu Nov 26\n\n41712,,raw_syscalls:sys_enter,5012345678,100.00,,\n",
			total: 41712,
		},
		{
			name: "strace -c table", tool: "strace",
			out: `% time     seconds  usecs/call     calls    errors syscall
------ ----------- ----------- --------- --------- ----------------
 61.20    0.612000         122      5000           fdatasync
 20.00    0.200000          10     20000      1200 futex
------ ----------- ----------- --------- --------- ----------------
100.00    0.812000          32     25000      1200 total
`,
			total:  25000,
			byName: map[string]uint64{"fdatasync": 5000, "futex": 20000},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			total, byName, err := parseSyscalls(tc.tool, []byte(tc.out))
			if err != nil {
				t.Fatal(err)
			}
			if total != tc.total {
				t.Errorf("total = %d, want %d", total, tc.total)
			}
			if diff := cmp.Diff(tc.byName, byName); diff != "" {
				t.Errorf("by name (-want +got):\n%s", diff)
			}
		})
	}
	if _, _, err := parseSyscalls("perf", []byte("perf: no permission\n")); err == nil {
		t.Error("output without a count: got nil error")
	}
}

// TestReadProc reads this process's counters: every Go program has
// several threads, and this one has run, so it has switched and used CPU.
func TestReadProc(t *testing.T) {
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Skip("no /proc")
	}
	s, err := readProc(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if s.threads < 2 || s.voluntary+s.involuntary == 0 || s.cpu <= 0 {
		t.Errorf("implausible counters %+v", s)
	}
}
