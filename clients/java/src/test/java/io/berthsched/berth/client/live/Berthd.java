package io.berthsched.berth.client.live;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real berthd, the binary at $BERTH_BERTHD (clients/java/build live builds one), run on
 * 127.0.0.1 with a data directory of its own; stopped with kill -9 or a clean shutdown.
 */
final class Berthd implements AutoCloseable {
  private static final Pattern SERVING = Pattern.compile("msg=\"serving gRPC\" address=(\\S+)");

  final Path dataDir;
  final Path logFile;
  private final List<String> extraArgs;
  private Process process;
  private String address;

  private Berthd(Path dir, List<String> extraArgs) {
    this.dataDir = dir.resolve("data");
    this.logFile = dir.resolve("berthd.log");
    this.extraArgs = extraArgs;
  }

  /** Starts a berthd on a free port; extraArgs are more flags (--tls-cert, --token-file, ...). */
  static Berthd start(Path dir, String... extraArgs) throws Exception {
    Berthd b = new Berthd(dir, List.of(extraArgs));
    b.launch("127.0.0.1:0");
    return b;
  }

  /** host:port it serves gRPC on. */
  String address() {
    return address;
  }

  private void launch(String listen) throws Exception {
    String bin = System.getenv("BERTH_BERTHD");
    if (bin == null || bin.isEmpty()) {
      throw new IllegalStateException("set BERTH_BERTHD to a berthd binary (clients/java/build live builds one)");
    }
    List<String> cmd = new ArrayList<>(List.of(bin, "--listen", listen, "--metrics-listen", "",
        "--data-dir", dataDir.toString()));
    cmd.addAll(extraArgs);
    Files.deleteIfExists(logFile);
    process = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.to(logFile.toFile())).start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      String log = Files.exists(logFile) ? Files.readString(logFile, StandardCharsets.UTF_8) : "";
      Matcher m = SERVING.matcher(log);
      if (m.find()) {
        address = m.group(1);
        return;
      }
      if (!process.isAlive()) {
        throw new IllegalStateException("berthd exited " + process.exitValue() + ":\n" + log);
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException("berthd did not start serving:\n" + log());
  }

  /** Kills berthd (SIGKILL) and starts it again on the same address and data directory. */
  void crashAndRestart() throws Exception {
    process.destroyForcibly().waitFor();
    launch(address);
  }

  String log() throws IOException {
    return Files.exists(logFile) ? Files.readString(logFile, StandardCharsets.UTF_8) : "";
  }

  @Override
  public void close() throws Exception {
    if (process != null && process.isAlive()) {
      process.destroy(); // SIGTERM: a clean shutdown
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor();
      }
    }
  }
}
