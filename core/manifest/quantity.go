package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
)

// decodeError turns a decoding failure into an Error. The Kubernetes
// decoder does not say which quantity it could not parse, so for those the
// document is walked again to find the first bad quantity and name its
// field.
func decodeError(e *entry, doc []byte, err error) error {
	if !isQuantityError(err) {
		return e.fail("", err)
	}
	var tree any
	if json.Unmarshal(doc, &tree) == nil {
		if field, value, qerr := findBadQuantity(tree, ""); field != "" {
			return e.fail(field, fmt.Errorf("invalid quantity %s: %w", value, qerr))
		}
	}
	return e.fail("", err)
}

func isQuantityError(err error) bool {
	return errors.Is(err, resource.ErrFormatWrong) || errors.Is(err, resource.ErrNumeric) ||
		strings.Contains(err.Error(), resource.ErrFormatWrong.Error()) || strings.Contains(err.Error(), resource.ErrNumeric.Error())
}

// quantityMaps are the fields holding resource lists (name -> quantity)
// in the kinds Berth reads.
var quantityMaps = []string{"requests", "limits", "overhead", "allocatable", "capacity", "allocatedResources"}

// findBadQuantity returns the path of the first value of a resource list
// that is not a valid quantity, walking maps in key order, with the value
// as written and the parse error; "" when there is none.
func findBadQuantity(node any, path string) (field, value string, err error) {
	switch n := node.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(n)) {
			child := joinField(path, k)
			if list, ok := n[k].(map[string]any); ok && slices.Contains(quantityMaps, k) {
				for _, name := range slices.Sorted(maps.Keys(list)) {
					if v, qerr := parseQuantity(list[name]); qerr != nil {
						return child + "[" + name + "]", v, qerr
					}
				}
				continue
			}
			if f, v, qerr := findBadQuantity(n[k], child); f != "" {
				return f, v, qerr
			}
		}
	case []any:
		for i, item := range n {
			if f, v, qerr := findBadQuantity(item, path+"["+strconv.Itoa(i)+"]"); f != "" {
				return f, v, qerr
			}
		}
	}
	return "", "", nil
}

// parseQuantity parses a JSON value as Kubernetes reads a quantity.
func parseQuantity(v any) (string, error) {
	switch q := v.(type) {
	case string:
		_, err := resource.ParseQuantity(q)
		return strconv.Quote(q), err
	case float64:
		s := strconv.FormatFloat(q, 'f', -1, 64)
		_, err := resource.ParseQuantity(s)
		return s, err
	case nil:
		return "null", nil
	}
	b, _ := json.Marshal(v)
	return string(b), fmt.Errorf("a quantity must be a string or a number")
}
