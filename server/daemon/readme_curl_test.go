package daemon

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
)

// The README's curl walk-through of the HTTP API, run as written (each curl
// command of its sh block, $BERTH pointing at a live berthd): every call
// answers 200, the watch shows the bind and the explain the pod bound.
func TestREADMECurl(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	block, ok := shBlockAfter(string(readme), "### HTTP/JSON")
	if !ok {
		t.Fatal("README.md has no sh block under ### HTTP/JSON")
	}
	h := startHTTP(t, Config{DataDir: t.TempDir()}, nil)
	var outputs []string
	for _, cmd := range shellCommands(block) {
		if cmd[0] != "curl" {
			continue
		}
		outputs = append(outputs, runCurl(t, h, cmd[1:]))
	}
	if len(outputs) != 4 {
		t.Fatalf("ran %d curl commands, want the walk-through's 4", len(outputs))
	}
	for i, want := range []string{`"applied":2`, `"bind":{"node":"n1"}`, `{}`, `"state":"QUEUE_STATE_BOUND"`} {
		if !strings.Contains(strings.ReplaceAll(outputs[i], " ", ""), want) {
			t.Errorf("curl command %d answered %s, want %s in it", i+1, outputs[i], want)
		}
	}
}

// runCurl does what curl does with the flags the README uses (-s, -N,
// --max-time, -X, -d, -H) and returns the body; a streamed one (-N) up to
// its first line showing a decision.
func runCurl(t *testing.T, h *httpEnv, args []string) string {
	t.Helper()
	method, url, body, stream := "", "", "", false
	header := http.Header{}
	for i := 0; i < len(args); i++ {
		switch a := args[i]; a {
		case "-s":
		case "-sN", "-N":
			stream = true
		case "--max-time":
			i++
		case "-X":
			i++
			method = args[i]
		case "-d":
			i++
			body = args[i]
		case "-H":
			i++
			k, v, _ := strings.Cut(args[i], ":")
			header.Set(k, strings.TrimSpace(v))
		default:
			if strings.HasPrefix(a, "-") {
				t.Fatalf("curl flag %s: the test does not know it", a)
			}
			url = strings.ReplaceAll(a, "$BERTH", h.base)
		}
	}
	if method == "" {
		method = "GET"
		if body != "" {
			method = "POST"
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), waitLimit)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = header
	resp, err := h.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("%s %s: %d %s", method, url, resp.StatusCode, b)
	}
	if !stream {
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// A watch never ends: read its lines until one carries a decision.
	var got strings.Builder
	buf := make([]byte, 4096)
	for !strings.Contains(got.String(), `"decisions"`) || !strings.HasSuffix(got.String(), "\n") {
		n, err := resp.Body.Read(buf)
		got.Write(buf[:n])
		if errors.Is(err, io.EOF) || err != nil {
			t.Fatalf("watch ended (%v) after %q", err, got.String())
		}
	}
	return got.String()
}

// shBlockAfter is the body of the first ```sh block after heading.
func shBlockAfter(doc, heading string) (string, bool) {
	_, rest, ok := strings.Cut(doc, "\n"+heading+"\n")
	if !ok {
		return "", false
	}
	_, rest, ok = strings.Cut(rest, "```sh\n")
	if !ok {
		return "", false
	}
	block, _, ok := strings.Cut(rest, "\n```")
	return block, ok
}

// shellCommands splits sh text into commands and their words as sh would
// for what the README writes: single and double quotes, a backslash before
// a newline continuing the line, # comments, & and newlines ending a
// command. Variables are left as written.
func shellCommands(text string) [][]string {
	var (
		cmds  [][]string
		words []string
		word  strings.Builder
		in    bool // a word is open
		quote rune
	)
	endWord := func() {
		if in {
			words = append(words, word.String())
			word.Reset()
			in = false
		}
	}
	endCmd := func() {
		endWord()
		if len(words) > 0 {
			cmds = append(cmds, words)
			words = nil
		}
	}
	rs := []rune(text)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				word.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == '\\' && i+1 < len(rs) && rs[i+1] == '\n':
			i++
		case r == '#' && !in:
			for i < len(rs) && rs[i] != '\n' {
				i++
			}
			endCmd()
		case r == '\n' || r == '&' || r == ';':
			endCmd()
		case r == ' ' || r == '\t':
			endWord()
		default:
			word.WriteRune(r)
			in = true
		}
	}
	endCmd()
	return cmds
}
