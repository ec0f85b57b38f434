package io.berthsched.berth.client;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.channels.FileChannel;

/** Where a {@link Watcher} keeps the revision to resume from. */
public interface Checkpoint {
  /** The saved revision, 0 when none was saved. */
  long load();

  /** Saves the revision to resume from. */
  void save(long revision);

  /** A checkpoint in memory: survives reconnects, not restarts. */
  static Checkpoint memory() {
    return new Checkpoint() {
      private volatile long revision;

      @Override
      public long load() {
        return revision;
      }

      @Override
      public void save(long r) {
        revision = r;
      }
    };
  }

  /** A checkpoint in a file, replaced atomically (written beside it, synced, renamed). */
  static Checkpoint file(Path path) {
    return new Checkpoint() {
      @Override
      public long load() {
        try {
          return Long.parseLong(Files.readString(path, StandardCharsets.UTF_8).strip());
        } catch (NoSuchFileException e) {
          return 0;
        } catch (IOException e) {
          throw new UncheckedIOException("berth: read checkpoint " + path, e);
        } catch (NumberFormatException e) {
          throw new IllegalStateException("berth: checkpoint " + path + " holds no revision", e);
        }
      }

      @Override
      public void save(long revision) {
        Path abs = path.toAbsolutePath();
        Path tmp = null;
        try {
          tmp = Files.createTempFile(abs.getParent(), abs.getFileName() + ".tmp", "");
          try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
            ch.write(StandardCharsets.UTF_8.encode(revision + "\n"));
            ch.force(true);
          }
          Files.move(tmp, abs, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
          if (tmp != null) {
            try {
              Files.deleteIfExists(tmp);
            } catch (IOException ignored) {
              // the save failed already; that error is the one to report
            }
          }
          throw new UncheckedIOException("berth: save checkpoint " + path, e);
        }
      }
    };
  }
}
