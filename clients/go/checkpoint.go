package berth

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// Checkpoint persists a watcher's position: the revision to resume from.
// Load returns 0 when nothing was saved yet.
type Checkpoint interface {
	Load(ctx context.Context) (uint64, error)
	Save(ctx context.Context, revision uint64) error
}

// FileCheckpoint keeps the revision as decimal text in one file, replaced
// atomically (write to a temporary file, fsync, rename) so that a crash
// leaves either the old or the new revision.
type FileCheckpoint struct {
	Path string
}

// Load reads the saved revision; a missing file is revision 0.
func (f FileCheckpoint) Load(ctx context.Context) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	b, err := os.ReadFile(f.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("berth client: load checkpoint: %w", err)
	}
	rev, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("berth client: checkpoint %s: %w", f.Path, err)
	}
	return rev, nil
}

// Save writes the revision durably.
func (f FileCheckpoint) Save(ctx context.Context, revision uint64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := f.save(revision); err != nil {
		return fmt.Errorf("berth client: save checkpoint: %w", err)
	}
	return nil
}

func (f FileCheckpoint) save(revision uint64) error {
	tmp, err := os.CreateTemp(filepath.Dir(f.Path), filepath.Base(f.Path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op once renamed
	if _, err := tmp.WriteString(strconv.FormatUint(revision, 10) + "\n"); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), f.Path)
}

// MemoryCheckpoint keeps the revision in memory: a watcher resumes across
// disconnects and server restarts, but not across restarts of the caller.
type MemoryCheckpoint struct {
	mu       sync.Mutex
	revision uint64
}

// Load returns the last saved revision.
func (m *MemoryCheckpoint) Load(context.Context) (uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.revision, nil
}

// Save records revision.
func (m *MemoryCheckpoint) Save(_ context.Context, revision uint64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.revision = revision
	return nil
}
