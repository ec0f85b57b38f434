package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// storeFile is the bbolt file inside the data directory.
const storeFile = "berth.db"

// openStore creates dataDir if needed and opens the bbolt file in it. bbolt
// locks the file, so a second berthd on the same directory fails here after
// lockTimeout instead of corrupting it.
//
// It is a placeholder until the store package is wired in: berthd holds the
// lock but stores nothing yet.
func openStore(dataDir string, lockTimeout time.Duration) (*bolt.DB, error) {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	path := filepath.Join(dataDir, storeFile)
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: lockTimeout})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("open %s: locked by another process (is another berthd using --data-dir %s?): %w", path, dataDir, err)
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return db, nil
}
