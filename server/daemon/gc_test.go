package daemon

import "testing"

func TestGCPercent(t *testing.T) {
	tests := []struct {
		gogc string
		want int
	}{
		{gogc: "", want: DefaultGCPercent},
		{gogc: "off", want: -1},
		{gogc: "150", want: 150},
		{gogc: "-1", want: -1},
		{gogc: "0", want: 0},
		{gogc: "lots", want: DefaultGCPercent},
	}
	for _, tt := range tests {
		getenv := func(key string) string {
			if key != "GOGC" {
				t.Errorf("GCPercent read %s, want only GOGC", key)
			}
			return tt.gogc
		}
		if got := GCPercent(getenv); got != tt.want {
			t.Errorf("GOGC=%q: GCPercent = %d, want %d", tt.gogc, got, tt.want)
		}
	}
}
