package convert

import "strings"

// Allocation-free checks that accept exactly the names the Kubernetes
// validation functions accept, without their regular expressions: ingest
// validates every object, and the expressions cost more than converting it.
// A name they reject goes through apimachinery's validation for its message.

// isDNSLabel: at most 63 of [a-z0-9-], alphanumeric at both ends.
func isDNSLabel(s string) bool {
	if len(s) == 0 || len(s) > 63 || !isLowerAlnum(s[0]) || !isLowerAlnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; !isLowerAlnum(c) && c != '-' {
			return false
		}
	}
	return true
}

// isSubdomain: at most 253 characters of dot-separated DNS labels.
func isSubdomain(s string) bool {
	if len(s) == 0 || len(s) > 253 {
		return false
	}
	for len(s) > 0 {
		label, rest, found := strings.Cut(s, ".")
		if !isSubdomainPart(label) || (found && rest == "") {
			return false
		}
		s = rest
	}
	return true
}

// isSubdomainPart is a DNS label without its 63-character limit (the
// subdomain rule only bounds the whole name).
func isSubdomainPart(s string) bool {
	if len(s) == 0 || !isLowerAlnum(s[0]) || !isLowerAlnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; !isLowerAlnum(c) && c != '-' {
			return false
		}
	}
	return true
}

// isQualifiedName: an optional DNS subdomain prefix and "/", then a name
// part.
func isQualifiedName(s string) bool {
	prefix, name, found := strings.Cut(s, "/")
	if !found {
		return isNamePart(s)
	}
	return isSubdomain(prefix) && isNamePart(name)
}

// isNamePart: at most 63 of [A-Za-z0-9-_.], alphanumeric at both ends (the
// form of label values and of the name part of qualified names).
func isNamePart(s string) bool {
	if len(s) == 0 || len(s) > 63 || !isAlnum(s[0]) || !isAlnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; !isAlnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

func isLowerAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

func isAlnum(c byte) bool { return isLowerAlnum(c) || c >= 'A' && c <= 'Z' }
