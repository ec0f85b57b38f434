package helper

import "fmt"

// As returns the old and new objects of a cluster event as T. Either may be
// nil (an add has no old object, a delete no new one); an object of another
// type is an error, which queueing hints turn into Queue.
func As[T any](oldObj, newObj any) (oldT, newT T, err error) {
	if oldObj != nil {
		var ok bool
		if oldT, ok = oldObj.(T); !ok {
			return oldT, newT, fmt.Errorf("expected %T, got %T", oldT, oldObj)
		}
	}
	if newObj != nil {
		var ok bool
		if newT, ok = newObj.(T); !ok {
			return oldT, newT, fmt.Errorf("expected %T, got %T", newT, newObj)
		}
	}
	return oldT, newT, nil
}
