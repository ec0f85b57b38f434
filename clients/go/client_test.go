package berth

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/test/bufconn"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

func TestApplyAndDelete(t *testing.T) {
	h := newHarness(t)
	c := h.client(&fakeClock{})

	if err := c.Apply(t.Context(), nodeObj("n1"), podObj("a", "")); err != nil {
		t.Fatalf("Apply = %v", err)
	}
	err := c.Apply(t.Context(), podObj("b", ""), podObj("c", "missing"))
	var be *BatchError
	if !errors.As(err, &be) || be.Applied != 1 || len(be.Errors) != 1 || be.Errors[0].Index != 1 || be.Errors[0].Code != codes.FailedPrecondition {
		t.Errorf("Apply with an unknown priority class = %v, want one FAILED_PRECONDITION at index 1", err)
	}
	var oe *ObjectError
	if !errors.As(err, &oe) || oe.Ref.GetName() != "c" {
		t.Errorf("errors.As(*ObjectError) found %v, want the error of pod c", oe)
	}
	if err := c.Delete(t.Context(), podRef("a"), podRef("never")); err != nil {
		t.Errorf("Delete = %v, want nil (NOT_FOUND is success)", err)
	}
	if diff := cmp.Diff([]string{"b", "n1"}, h.fake.keys()); diff != "" {
		t.Errorf("objects held (-want +got):\n%s", diff)
	}
}

func TestObjectErrorMessage(t *testing.T) {
	e := &ObjectError{Index: 2, Ref: podRef("web"), Code: codes.InvalidArgument, FieldPath: "pod.containers[0].requests[cpu]", Message: "must not be negative"}
	want := "object 2 (pod ns/web): InvalidArgument: pod.containers[0].requests[cpu]: must not be negative"
	if got := e.Error(); got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestReportBind(t *testing.T) {
	h := newHarness(t)
	c := h.client(&fakeClock{})
	bind := &berthv1.Decision{Revision: 7, Pod: &berthv1.PodRef{Namespace: "ns", Name: "a", Uid: "u"},
		Action: &berthv1.Decision_Bind{Bind: &berthv1.Bind{Node: "n1"}}}
	evict := &berthv1.Decision{Revision: 8, Action: &berthv1.Decision_Evict{Evict: &berthv1.Evict{}}}

	if err := c.ConfirmBind(t.Context(), bind); err != nil {
		t.Fatalf("ConfirmBind = %v", err)
	}
	if err := c.FailBind(t.Context(), bind, "image pull failed"); err != nil {
		t.Fatalf("FailBind = %v", err)
	}
	if err := c.ConfirmBind(t.Context(), evict); !errors.Is(err, ErrNotBind) {
		t.Errorf("ConfirmBind(evict) = %v, want ErrNotBind", err)
	}
	want := []*berthv1.ReportBindResultRequest{
		{Pod: bind.GetPod(), Node: "n1", Revision: 7, Outcome: berthv1.BindOutcome_BIND_OUTCOME_CONFIRMED},
		{Pod: bind.GetPod(), Node: "n1", Revision: 7, Outcome: berthv1.BindOutcome_BIND_OUTCOME_FAILED, Reason: "image pull failed"},
	}
	if diff := cmp.Diff(want, h.fake.reports, ignoreProto); diff != "" {
		t.Errorf("reports (-want +got):\n%s", diff)
	}
}

func TestDialSendsToken(t *testing.T) {
	lis := bufconn.Listen(1 << 16)
	got := make(chan []string, 1)
	srv := grpc.NewServer(grpc.UnaryInterceptor(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		md, _ := metadata.FromIncomingContext(ctx)
		got <- md.Get("authorization")
		return h(ctx, req)
	}))
	berthv1.RegisterStateServiceServer(srv, newFakeBerth())
	go srv.Serve(lis) //nolint:errcheck // ends with Stop
	t.Cleanup(srv.Stop)

	c, err := Dial(t.Context(), "passthrough:///bufnet", WithToken("s3cret"),
		WithDialOptions(grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) })))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Apply(t.Context(), nodeObj("n1")); err != nil {
		t.Fatalf("Apply = %v", err)
	}
	if diff := cmp.Diff([]string{"Bearer s3cret"}, <-got); diff != "" {
		t.Errorf("authorization metadata (-want +got):\n%s", diff)
	}
}

func TestFileCheckpoint(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		content string // "" for no file
		want    uint64
		wantErr bool
	}{
		{name: "missing file is 0"},
		{name: "saved revision", content: "42\n", want: 42},
		{name: "garbage", content: "forty-two", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cp := FileCheckpoint{Path: filepath.Join(dir, tt.name)}
			if tt.content != "" {
				if err := os.WriteFile(cp.Path, []byte(tt.content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			got, err := cp.Load(t.Context())
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("Load() = %d, %v, want %d (error: %v)", got, err, tt.want, tt.wantErr)
			}
		})
	}
	t.Run("save then load", func(t *testing.T) {
		cp := FileCheckpoint{Path: filepath.Join(dir, "rev")}
		for _, rev := range []uint64{5, 18446744073709551615} {
			if err := cp.Save(t.Context(), rev); err != nil {
				t.Fatal(err)
			}
			if got, err := cp.Load(t.Context()); err != nil || got != rev {
				t.Errorf("Load() = %d, %v, want %d", got, err, rev)
			}
		}
		if tmps, _ := filepath.Glob(cp.Path + ".tmp*"); len(tmps) > 0 {
			t.Errorf("temporary files left behind: %v", tmps)
		}
	})
}

func TestBackoffDelay(t *testing.T) {
	b := Backoff{Initial: 100 * time.Millisecond, Max: time.Second, Factor: 2}
	tests := []struct {
		attempt int
		want    time.Duration
	}{
		{0, 0}, {1, 100 * time.Millisecond}, {2, 200 * time.Millisecond}, {4, 800 * time.Millisecond}, {5, time.Second}, {50, time.Second},
	}
	for _, tt := range tests {
		if got := b.Delay(tt.attempt); got != tt.want {
			t.Errorf("Delay(%d) = %v, want %v", tt.attempt, got, tt.want)
		}
	}
}

func TestApplyAndDeleteSplitAboveMaxBatch(t *testing.T) {
	h := newHarness(t)
	c := h.client(&fakeClock{}, WithMaxBatch(2))

	err := c.Apply(t.Context(), nodeObj("a"), nodeObj("b"), nodeObj("c"), nodeObj(""), nodeObj("e"))
	var be *BatchError
	if !errors.As(err, &be) || be.Applied != 4 || len(be.Errors) != 1 || be.Errors[0].Index != 3 {
		t.Errorf("Apply of 5 with the 4th invalid = %v, want one error at index 3, 4 applied", err)
	}
	if err := c.Delete(t.Context(), podRef("x"), podRef("y"), podRef("z")); err != nil {
		t.Errorf("Delete = %v, want nil", err)
	}
	h.fake.mu.Lock()
	got := h.fake.unaryCalls
	h.fake.mu.Unlock()
	if got != 5 {
		t.Errorf("unary calls = %d, want 5 (3 Apply + 2 Delete)", got)
	}

	h.fake.mu.Lock()
	h.fake.maxMutations = 1
	h.fake.mu.Unlock()
	if err := c.Apply(t.Context(), nodeObj("a"), nodeObj("b")); !errors.Is(err, ErrRequestTooLarge) {
		t.Errorf("Apply over berthd's limit = %v, want ErrRequestTooLarge", err)
	}
}
