package berth

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"testing"
)

// quantityTable is clients/testdata/quantities.json, the table the Go,
// Python and TypeScript clients' quantity tests share.
type quantityTable struct {
	Errors map[string]string `json:"errors"`
	Parse  []struct {
		Resource, Quantity, Want, Error string
	} `json:"parse"`
	Format []struct {
		Resource, Value, Want string
	} `json:"format"`
}

func readQuantityTable(t *testing.T) quantityTable {
	t.Helper()
	data, err := os.ReadFile("../testdata/quantities.json")
	if err != nil {
		t.Fatal(err)
	}
	var table quantityTable
	if err := json.Unmarshal(data, &table); err != nil {
		t.Fatal(err)
	}
	if len(table.Parse) == 0 || len(table.Format) == 0 {
		t.Fatal("quantities.json holds no cases")
	}
	return table
}

func TestParseQuantity(t *testing.T) {
	table := readQuantityTable(t)
	sentinels := map[string]error{"invalid": ErrInvalidQuantity, "range": ErrQuantityRange}
	for _, tc := range table.Parse {
		t.Run(tc.Resource+"/"+tc.Quantity, func(t *testing.T) {
			got, err := ParseQuantity(tc.Resource, tc.Quantity)
			if tc.Error != "" {
				quoted, _ := json.Marshal(tc.Quantity)
				want := fmt.Sprintf("quantity %s of %s: %s", quoted, tc.Resource, table.Errors[tc.Error])
				if err == nil || err.Error() != want {
					t.Fatalf("ParseQuantity(%q, %q) = %d, %v; want error %q", tc.Resource, tc.Quantity, got, err, want)
				}
				if s := sentinels[tc.Error]; s != nil && !errors.Is(err, s) {
					t.Errorf("error %v does not wrap %v", err, s)
				}
				return
			}
			want, _ := strconv.ParseInt(tc.Want, 10, 64)
			if err != nil || got != want {
				t.Errorf("ParseQuantity(%q, %q) = %d, %v; want %d", tc.Resource, tc.Quantity, got, err, want)
			}
		})
	}
}

func TestFormatQuantity(t *testing.T) {
	for _, tc := range readQuantityTable(t).Format {
		v, err := strconv.ParseInt(tc.Value, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		if got := FormatQuantity(tc.Resource, v); got != tc.Want {
			t.Errorf("FormatQuantity(%q, %d) = %q, want %q", tc.Resource, v, got, tc.Want)
		}
		if back, err := ParseQuantity(tc.Resource, tc.Want); err != nil || back != v {
			t.Errorf("ParseQuantity(%q, %q) = %d, %v; want %d back", tc.Resource, tc.Want, back, err, v)
		}
	}
}

func TestParseResources(t *testing.T) {
	got, err := ParseResources(map[string]string{"cpu": "250m", "memory": "1Gi", "pods": "110"})
	want := map[string]int64{"cpu": 250, "memory": 1 << 30, "pods": 110}
	if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("ParseResources = %v, %v; want %v", got, err, want)
	}
	if _, err := ParseResources(map[string]string{"cpu": "1", "memory": "1GB"}); err == nil || err.Error() != `quantity "1GB" of memory: `+ErrInvalidQuantity.Error() {
		t.Errorf("ParseResources with a bad memory = %v", err)
	}
}
