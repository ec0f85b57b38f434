// Package fieldpath joins the field paths errors name ("pods[2].name"),
// the one joiner both the wire's validation (server/convert, its errors
// prefixed in server/errmap) and the scheduler configuration's decoding
// (core/config) use, so a path reads the same from either.
package fieldpath

// Join appends the relative field path rel to p: after a dot, or directly
// when rel starts with an index or key ("[2]").
func Join(p, rel string) string {
	switch {
	case rel == "":
		return p
	case p == "":
		return rel
	case rel[0] == '[':
		return p + rel
	}
	return p + "." + rel
}
